// The layout rules of docs/architecture.md, checked on the source tree:
//   - ui/ and app/ (the window and the CLI monitor) include only the
//     engine's public headers (core/CMakeLists.txt's HWL_PUBLIC_HEADERS),
//     and a public header includes only public headers;
//   - no source file is over 600 lines;
//   - no function in core/ or ui/ is over 80 lines;
//   - core/'s folders include only the folders below them (kLayers), and
//     no object file of a folder uses a symbol defined in a folder above it
//     (the dependency a linker makes, which no include shows);
//   - no mode name is written out as a string outside core/strategy/;
//   - ui/ holds its files in subfolders, one per part of the window (its
//     rooms), and a room includes only its own headers and the shared
//     widgets (ui/widgets/); window/, which composes the window out of the
//     other rooms, includes any room.
#include "config/experimentconfig.h"
#include "strategy/catalog.h"
#include "testpaths.h"

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kRoot = QString::fromUtf8(hwl::test::kSourceDir);

QStringList sourceFiles(const QString& folder) {
    QStringList files;
    QDirIterator it(kRoot + "/" + folder, {"*.h", "*.cpp", "*.cu", "*.cuh"}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    files.sort();
    return files;
}

QStringList readLines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return QString::fromUtf8(f.readAll()).split('\n');
}

/// The quoted includes of a file: `#include "x/y.h"` -> "x/y.h".
QStringList quotedIncludes(const QString& path) {
    static const QRegularExpression include(
        QString::fromLatin1("^\\s*#\\s*include\\s+\"([^\"]+)\""));
    QStringList found;
    for (const QString& line : readLines(path))
        if (const auto m = include.match(line); m.hasMatch())
            found << m.captured(1);
    return found;
}

QSet<QString> publicHeaders() {
    const QStringList list =
        QString::fromUtf8(hwl::test::kPublicHeaderList).split(',', Qt::SkipEmptyParts);
    return QSet<QString>(list.begin(), list.end());
}

/// Functions longer than `limit` lines, as "file:line (N lines)". A small
/// scanner: it skips comments, string and character literals, tracks braces,
/// and calls a brace a function body when it opens at namespace or class
/// scope after a head with a parenthesis (a signature); the function runs
/// from the head's first line to the matching brace.
QStringList longFunctions(const QString& path, int limit) {
    enum class Scope { Namespace, Class, Function, Block };
    struct Open {
        Scope scope;
        int headLine;
    };
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    const QString text = QString::fromUtf8(f.readAll());
    static const QRegularExpression classKey(
        QString::fromLatin1("\\b(class|struct|union|enum)\\b"));
    std::vector<Open> stack;
    QString head;
    int headLine = -1, line = 1;
    QStringList found;
    auto inCode = [&] {
        return stack.empty() || stack.back().scope == Scope::Namespace ||
               stack.back().scope == Scope::Class;
    };
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        const QChar next = i + 1 < text.size() ? text[i + 1] : QChar();
        if (c == '\n') {
            ++line;
            continue;
        }
        if (c == '/' && next == '/') { // to the end of the line
            while (i < text.size() && text[i] != '\n')
                ++i;
            --i;
            continue;
        }
        if (c == '/' && next == '*') {
            for (i += 2; i + 1 < text.size() && !(text[i] == '*' && text[i + 1] == '/'); ++i)
                line += text[i] == '\n';
            ++i;
            continue;
        }
        if (c == '#' && head.trimmed().isEmpty()) { // a preprocessor line (with continuations)
            while (i < text.size() && !(text[i] == '\n' && text[i - 1] != '\\'))
                line += text[i++] == '\n';
            --i;
            continue;
        }
        if (c == '"' || c == '\'') {
            for (++i; i < text.size() && text[i] != c; ++i)
                if (text[i] == '\\')
                    ++i;
            head += 'x';
            continue;
        }
        if (c == ';' || c == '{' || c == '}') {
            if (c == '{') {
                Scope scope = Scope::Block;
                if (inCode()) {
                    const QString h = head.simplified();
                    if (h.startsWith("namespace") || h.startsWith("extern"))
                        scope = Scope::Namespace;
                    else if (h.contains('(') && !h.contains('='))
                        scope = Scope::Function;
                    else if (classKey.match(h).hasMatch() && !h.contains('='))
                        scope = Scope::Class;
                }
                stack.push_back({scope, headLine < 0 ? line : headLine});
            } else if (c == '}' && !stack.empty()) {
                const Open open = stack.back();
                stack.pop_back();
                if (open.scope == Scope::Function && line - open.headLine + 1 > limit)
                    found << QStringLiteral("%1:%2 (%3 lines)")
                                 .arg(path.startsWith(kRoot) ? path.mid(kRoot.size() + 1) : path)
                                 .arg(open.headLine)
                                 .arg(line - open.headLine + 1);
            }
            head.clear();
            headLine = -1;
            continue;
        }
        if (!c.isSpace() && headLine < 0)
            headLine = line;
        head += c;
    }
    return found;
}

/// core/'s folders from the bottom of the data path up (docs/architecture.md,
/// "Layers inside core/"): a folder includes its own headers and those of
/// the folders before it in this list, never one after it.
const QStringList kLayers = {"util",  "toy",        "cuda",    "optim",     "store", "data",
                             "model", "config",     "backend", "telemetry", "io",    "launch",
                             "train", "collective", "mpi",     "strategy",  "run",   "preset"};

/// One object file of the engine: the core folder its source is in, and
/// the symbols it defines (strong, global) and uses (undefined).
struct ObjectSymbols {
    QString source; ///< "core/config/fields.cpp"
    QString folder; ///< "config"
    QSet<QString> defined, used;
};

/// The engine's object files and their symbols, from `nm -P -A` (mangled
/// names: one word each).
QList<ObjectSymbols> engineObjects() {
    const QStringList objects = QString::fromUtf8(hwl::test::kEngineObjects).split('|');
    QProcess nm;
    nm.start("nm", QStringList{"-P", "-A", "-g"} + objects);
    if (!nm.waitForFinished(60000) || nm.exitCode() != 0)
        qFatal("nm failed: %s", nm.readAllStandardError().constData());
    QMap<QString, ObjectSymbols> byObject;
    for (const QString& object : objects) {
        const qsizetype at = object.indexOf("hwl_engine.dir/");
        ObjectSymbols& o = byObject[object];
        // ".../hwl_engine.dir/./FOLDER/NAME.cpp.o" -> "core/FOLDER/NAME.cpp"
        o.source = QDir::cleanPath("core/" + object.mid(at + 15).chopped(2));
        o.folder = o.source.section('/', 1, 1);
        if (!kLayers.contains(o.folder))
            qFatal("object %s is in no layer (kLayers)", qPrintable(object));
    }
    for (const QByteArray& line : nm.readAllStandardOutput().split('\n')) {
        // "OBJECT: SYMBOL TYPE [VALUE SIZE]"
        const QList<QByteArray> words = line.simplified().split(' ');
        if (words.size() < 3 || !words[0].endsWith(':'))
            continue;
        const auto it = byObject.find(QString::fromUtf8(words[0].chopped(1)));
        if (it == byObject.end())
            continue;
        const char type = words[2].isEmpty() ? '?' : words[2][0];
        if (type == 'U')
            it->used.insert(QString::fromUtf8(words[1]));
        else if (QByteArray("TDBR").contains(type)) // weak and common symbols: anyone's
            it->defined.insert(QString::fromUtf8(words[1]));
    }
    return byObject.values();
}

/// A use of a symbol defined in a higher layer than the user's folder: the
/// dependency that runs up at link time ("config/x.cpp uses S, defined in
/// strategy/y.cpp").
QStringList upwardLinks(const QList<ObjectSymbols>& objects) {
    QMap<QString, const ObjectSymbols*> definer;
    for (const ObjectSymbols& o : objects)
        for (const QString& s : o.defined)
            definer.insert(s, &o);
    QStringList violations;
    for (const ObjectSymbols& o : objects)
        for (const QString& s : o.used)
            if (const ObjectSymbols* d = definer.value(s);
                d && kLayers.indexOf(d->folder) > kLayers.indexOf(o.folder))
                violations << o.source + " uses " + s + ", defined in " + d->source + " (" +
                                  o.folder + " is below " + d->folder + ")";
    violations.sort();
    return violations;
}

/// The core folder an include names ("store/x.h" -> "store"), or empty.
QString coreFolderOf(const QString& include) {
    const QString folder = include.section('/', 0, 0);
    return include.contains('/') && QFileInfo(kRoot + "/core/" + folder).isDir() ? folder
                                                                                 : QString();
}

/// ui/'s rooms: one folder per part of the window, and widgets/, what
/// several of them share. A room includes its own headers and widgets/'s;
/// window/ (the composition root) includes every room.
const QStringList kUiRooms = {"charts", "form", "runs", "teaching", "widgets", "window"};
const QString kSharedRoom = QStringLiteral("widgets");
const QString kCompositionRoot = QStringLiteral("window");

/// The includes of `file` (a path inside ui/, "runs/x.cpp") that reach into
/// another room than its own or widgets/, "ui/file includes inc (...)".
/// Includes of anything but a ui room (the engine, Qt) are not this rule's.
QStringList crossRoomIncludes(const QString& file, const QStringList& includes) {
    const QString room = file.section('/', 0, 0);
    QStringList found;
    if (room == kCompositionRoot)
        return found;
    for (const QString& inc : includes) {
        const QString to = inc.section('/', 0, 0);
        if (inc.contains('/') && kUiRooms.contains(to) && to != room && to != kSharedRoom)
            found << "ui/" + file + " includes " + inc + " (" + room + "/ includes only " + room +
                         "/ and " + kSharedRoom + "/)";
    }
    return found;
}

/// The string literals of a source file, comments skipped (a small
/// scanner: escapes are kept as written).
QStringList stringLiterals(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    const QString text = QString::fromUtf8(f.readAll());
    QStringList found;
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text.mid(i, 2) == "//") {
            i = text.indexOf('\n', i);
            if (i < 0)
                break;
        } else if (text.mid(i, 2) == "/*") {
            i = text.indexOf("*/", i + 2);
            if (i < 0)
                break;
            ++i;
        } else if (text[i] == '\'') {
            for (++i; i < text.size() && text[i] != '\''; ++i)
                if (text[i] == '\\')
                    ++i;
        } else if (text[i] == '"') {
            QString literal;
            for (++i; i < text.size() && text[i] != '"'; ++i) {
                if (text[i] == '\\')
                    literal += text[i++];
                literal += text[i];
            }
            found << literal;
        }
    }
    return found;
}

/// Mode names that are also words of another option (a transport is
/// "threads" or "processes"), which the monitors may write for that option.
bool alsoATransport(const std::string& name) {
    for (hwl::Transport t :
         {hwl::Transport::Threads, hwl::Transport::Processes, hwl::Transport::Mpi})
        if (name == hwl::toString(t))
            return true;
    return false;
}

} // namespace

class TestLayout : public QObject {
    Q_OBJECT

private slots:
    void monitorsIncludeOnlyPublicHeaders() {
        const QSet<QString> pub = publicHeaders();
        QVERIFY(pub.contains("run/run.h"));
        QStringList violations;
        // A layer includes its own headers and those of the layers below it
        // (app: ui), and of the engine only the public ones.
        const QMap<QString, QStringList> own{{"ui", {"ui"}}, {"app", {"app", "ui"}}};
        for (const QString layer : {"ui", "app"})
            for (const QString& file : sourceFiles(layer))
                for (const QString& inc : quotedIncludes(file)) {
                    bool mine = QFile::exists(QFileInfo(file).path() + "/" + inc);
                    for (const QString& below : own[layer])
                        mine = mine || QFile::exists(kRoot + "/" + below + "/" + inc);
                    if (!mine && !pub.contains(inc))
                        violations << file.mid(kRoot.size() + 1) + " includes " + inc;
                }
        QVERIFY2(violations.isEmpty(), qPrintable(violations.join('\n')));
    }

    void publicHeadersIncludeOnlyPublicHeaders() {
        QStringList violations;
        for (const QString& header : publicHeaders()) {
            const QString path = kRoot + "/core/" + header;
            QVERIFY2(QFile::exists(path), qPrintable(path));
            for (const QString& inc : quotedIncludes(path))
                if (!publicHeaders().contains(inc))
                    violations << header + " includes the private " + inc;
        }
        QVERIFY2(violations.isEmpty(), qPrintable(violations.join('\n')));
    }

    void noFileIsOver600Lines() {
        QStringList violations;
        for (const QString layer : {"core", "ui", "app", "tests", "bench"})
            for (const QString& file : sourceFiles(layer))
                if (const auto n = readLines(file).size(); n > 600)
                    violations
                        << QStringLiteral("%1: %2 lines").arg(file.mid(kRoot.size() + 1)).arg(n);
        QVERIFY2(violations.isEmpty(), qPrintable(violations.join('\n')));
    }

    void noFunctionIsOver80Lines() {
        QStringList violations;
        for (const QString layer : {"core", "ui", "app"})
            for (const QString& file : sourceFiles(layer))
                violations << longFunctions(file, 80);
        QVERIFY2(violations.isEmpty(), qPrintable(violations.join('\n')));
    }

    // The includes run down the data path: a folder of core/ includes its
    // own headers and those of the folders below it, never one above.
    void coreIncludesRunDown() {
        QStringList violations;
        for (const QFileInfo& dir :
             QDir(kRoot + "/core").entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            const QString folder = dir.fileName();
            const qsizetype level = kLayers.indexOf(folder);
            if (level < 0) {
                violations << "core/" + folder + " is not in the layer list (kLayers)";
                continue;
            }
            for (const QString& file : sourceFiles("core/" + folder))
                for (const QString& inc : quotedIncludes(file))
                    if (const QString to = coreFolderOf(inc);
                        !to.isEmpty() && kLayers.indexOf(to) > level)
                        violations << file.mid(kRoot.size() + 1) + " includes " + inc + " (" +
                                          folder + " is below " + to + ")";
        }
        QVERIFY2(violations.isEmpty(), qPrintable(violations.join('\n')));
    }

    // Nor do the links run up: an object file of a folder uses no symbol
    // defined in a folder above it (a declaration below with its definition
    // above, filled in by the linker, is the same dependency an include
    // would be).
    void coreLinksRunDown() {
        const QList<ObjectSymbols> objects = engineObjects();
        QVERIFY(objects.size() > 50);
        const QStringList violations = upwardLinks(objects);
        QVERIFY2(violations.isEmpty(), qPrintable(violations.join('\n')));
        // The check finds one: config using what strategy defines.
        ObjectSymbols low{"low object", "config", {"_Z1av"}, {"_Z1bv", "_Z1cv"}};
        ObjectSymbols high{"high object", "strategy", {"_Z1bv"}, {"_Z1av"}};
        QCOMPARE(upwardLinks({low, high}),
                 QStringList{"low object uses _Z1bv, defined in high object "
                             "(config is below strategy)"});
    }

    // What a mode is, only the mode says (its traits, describeMode(), the
    // catalog's queries): nowhere else is a mode's name compared or set.
    void noModeNameOutsideTheModes() {
        QStringList violations;
        for (const QString layer : {"core", "ui", "app"})
            for (const QString& file : sourceFiles(layer)) {
                // The strategies, and config/modes.cpp, where the built-in
                // names are spelt once.
                if (file.startsWith(kRoot + "/core/strategy/") ||
                    file == kRoot + "/core/config/modes.cpp")
                    continue;
                for (const QString& literal : stringLiterals(file))
                    for (const std::string& mode : hwl::modeNames())
                        if (literal == QString::fromStdString(mode) && !alsoATransport(mode))
                            violations << file.mid(kRoot.size() + 1) + ": \"" + literal + "\"";
            }
        QVERIFY2(violations.isEmpty(), qPrintable(violations.join('\n')));
        // The scanner finds a literal past comments and escapes.
        QTemporaryDir dir;
        QFile f(dir.filePath("x.cpp"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            "// \"no\"\n/* \"nor\" */ char c = '\"'; auto s = \"a\\\"b\"; auto m = \"serial\";\n");
        f.close();
        QCOMPARE(stringLiterals(f.fileName()), (QStringList{"a\\\"b", "serial"}));
    }

    // ui/ is laid out by the window's parts: no file lies at its top.
    void uiFilesAreInTheirParts() {
        QStringList loose;
        for (const QFileInfo& entry : QDir(kRoot + "/ui").entryInfoList(QDir::Files))
            if (entry.fileName() != "CMakeLists.txt")
                loose << "ui/" + entry.fileName();
        QVERIFY2(loose.isEmpty(), qPrintable("not in a part's subfolder: " + loose.join(", ")));
    }

    // A room includes its own headers and widgets/'s; only window/ builds
    // the window out of the other rooms. The same function judges a made-up
    // list, so the rule is seen to fail where it must.
    void uiRoomsIncludeOnlyThemselvesAndWidgets() {
        QStringList violations;
        for (const QFileInfo& dir :
             QDir(kRoot + "/ui").entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            if (!kUiRooms.contains(dir.fileName())) {
                violations << "ui/" + dir.fileName() + " is not in the room list (kUiRooms)";
                continue;
            }
            for (const QString& file : sourceFiles("ui/" + dir.fileName()))
                violations << crossRoomIncludes(file.mid(kRoot.size() + 4), quotedIncludes(file));
        }
        QVERIFY2(violations.isEmpty(), qPrintable(violations.join('\n')));

        const QStringList includes = {"runs/runlibrary.h", "widgets/numbers.h",
                                      "charts/trainingchart.h", "config/fields.h", "QChart"};
        const QStringList bad = crossRoomIncludes("runs/x.cpp", includes);
        QCOMPARE(bad.size(), 1);
        QVERIFY2(bad[0].endsWith("runs/x.cpp includes charts/trainingchart.h (runs/ includes "
                                 "only runs/ and widgets/)"),
                 qPrintable(bad[0]));
        QCOMPARE(crossRoomIncludes("widgets/x.h", {"form/experimentform.h"}).size(), 1);
        QVERIFY(crossRoomIncludes("window/x.cpp", includes).isEmpty());
    }

    // The checker itself finds what it must (a regression guard for the
    // heuristics above).
    void longFunctionCheckerFindsALongFunction() {
        QTemporaryDir dir;
        QFile f(dir.filePath("long.cpp"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        QByteArray text = "namespace x {\n\nint longOne(int a) {\n";
        for (int i = 0; i < 90; ++i)
            text += "    a += " + QByteArray::number(i) + ";\n";
        text += "    return a;\n}\n\nint shortOne() {\n    return 1;\n}\n\n} // namespace x\n";
        f.write(text);
        f.close();
        const QStringList found = longFunctions(f.fileName(), 80);
        QCOMPARE(found.size(), 1);
        QVERIFY2(found[0].contains("(93 lines)"), qPrintable(found[0]));
    }
};

QTEST_GUILESS_MAIN(TestLayout)
#include "tst_layout.moc"
