#pragma once
// The text readers' pipeline (CSV, LIBSVM): the file is cut into chunks of
// whole lines (TextChunks), the chunks are parsed on every core, each into
// its own arrays, and merged into the dataset in file order. Memory holds
// the dataset and the few chunks in flight, never the whole text.
//
// Line numbers: a chunk is parsed before the chunks ahead of it are
// counted, so its parse numbers its lines from 1. A parse that fails is
// run again at the merge, where the chunk's true first line is known, and
// that run throws the message with the right line; the merge goes in file
// order, so the first problem in the file is the one reported, whichever
// thread found it, and a reading problem (a truncated gzip stream, a line
// too long) comes after every row before it.
//
// ThreadSanitizer builds (HWL_THREAD_SANITIZER) run it on the calling
// thread, as util/parallel.h does: Debian's libtbb is not instrumented.
#include "data/datasourceio.h"
#include "util/errors.h"
#include "util/parallel.h"

#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef HWL_THREAD_SANITIZER
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>
#endif

namespace hwl::detail {

/// What every chunk carries besides its parsed rows.
struct TextChunk {
    std::string text;             ///< whole lines
    std::uint64_t end = 0;        ///< content bytes read through this chunk
    std::int64_t lines = 0;       ///< lines in `text`: the parse counts them
    std::exception_ptr readError; ///< reading (or preparing) failed here
    bool lineTooLong = false;     ///< reading found a line over TextChunks::kMaxLineBytes
    bool parseFailed = false;     ///< the parse threw: the merge parses it again
};

namespace chunking {

/// Owns the chunks; hands out free ones (a chunk keeps its arrays' memory
/// for the next text).
template <class Chunk>
class Pool {
public:
    Chunk* take() {
        const std::lock_guard lock(mutex_);
        if (free_.empty()) {
            owned_.push_back(std::make_unique<Chunk>());
            return owned_.back().get();
        }
        Chunk* c = free_.back();
        free_.pop_back();
        return c;
    }
    void give(Chunk* c) {
        const std::lock_guard lock(mutex_);
        free_.push_back(c);
    }

private:
    std::mutex mutex_;
    std::vector<std::unique_ptr<Chunk>> owned_;
    std::vector<Chunk*> free_;
};

/// The next chunk read and prepared, or null at the end. A failure becomes
/// a chunk that carries it (and `stop`), to be thrown in file order.
template <class Chunk, class Prepare>
Chunk* read(TextChunks& in, Pool<Chunk>& pool, Prepare& prepare, bool& stop) {
    Chunk* c = pool.take();
    c->readError = nullptr;
    c->lineTooLong = c->parseFailed = false;
    c->lines = 0;
    try {
        if (!in.next(c->text)) {
            pool.give(c);
            return nullptr;
        }
        c->end = in.consumed();
        prepare(*c);
    } catch (const TextChunks::LineTooLong&) {
        c->lineTooLong = stop = true;
    } catch (const InputError&) {
        c->readError = std::current_exception();
        stop = true;
    }
    return c;
}

template <class Chunk, class Parse>
void parse(Chunk& c, Parse& parseFn) {
    if (c.readError || c.lineTooLong)
        return;
    try {
        parseFn(c, std::int64_t(1));
    } catch (const InputError&) {
        c.parseFailed = true;
    }
}

template <class Chunk, class Parse, class Merge>
void merge(Chunk& c, const TextChunks& in, Parse& parseFn, Merge& mergeFn,
           std::int64_t& linesBefore) {
    if (c.readError)
        std::rethrow_exception(c.readError);
    if (c.lineTooLong)
        throw InputError(in.lineTooLong(linesBefore + 1));
    if (c.parseFailed) {
        parseFn(c, linesBefore + 1); // throws the message, with the true line
        throw std::logic_error("a text chunk parsed without error the second time");
    }
    mergeFn(c, linesBefore);
    linesBefore += c.lines;
}

} // namespace chunking

/// Runs the pipeline over `in`: prepare(chunk) as each chunk is read, in
/// file order; parse(chunk, firstLine) on any thread, numbering the lines
/// of the chunk from firstLine, and throwing InputError for a bad row;
/// merge(chunk, linesBefore) in file order. Chunk derives from TextChunk.
template <class Chunk, class Prepare, class Parse, class Merge>
void parseChunks(TextChunks& in, const TextParse& how, Prepare&& prepare, Parse&& parseFn,
                 Merge&& mergeFn) {
    chunking::Pool<Chunk> pool;
    std::int64_t linesBefore = 0;
    bool stop = false;
#ifndef HWL_THREAD_SANITIZER
    if (how.threads != 1) {
        tbb::task_arena arena(how.threads > 1 ? how.threads : tbb::task_arena::automatic);
        arena.initialize();
        // A few chunks per thread in flight: enough to keep every core
        // busy while the reading and the merging go one chunk at a time.
        const auto tokens = std::size_t(2 * arena.max_concurrency() + 2);
        const auto readStage = [&](tbb::flow_control& fc) -> Chunk* {
            Chunk* c = stop ? nullptr : chunking::read(in, pool, prepare, stop);
            if (!c)
                fc.stop();
            return c;
        };
        const auto parseStage = [&](Chunk* c) {
            chunking::parse(*c, parseFn);
            return c;
        };
        const auto mergeStage = [&](Chunk* c) {
            chunking::merge(*c, in, parseFn, mergeFn, linesBefore);
            pool.give(c);
        };
        detail::withTbbStartHint([&] {
            arena.execute([&] {
                tbb::parallel_pipeline(
                    tokens,
                    tbb::make_filter<void, Chunk*>(tbb::filter_mode::serial_in_order, readStage) &
                        tbb::make_filter<Chunk*, Chunk*>(tbb::filter_mode::parallel, parseStage) &
                        tbb::make_filter<Chunk*, void>(tbb::filter_mode::serial_in_order,
                                                       mergeStage));
            });
        });
        return;
    }
#else
    (void)how; // ThreadSanitizer builds parse on the calling thread (as util/parallel.h)
#endif
    while (Chunk* c = stop ? nullptr : chunking::read(in, pool, prepare, stop)) {
        chunking::parse(*c, parseFn);
        chunking::merge(*c, in, parseFn, mergeFn, linesBefore);
        pool.give(c);
    }
}

} // namespace hwl::detail
