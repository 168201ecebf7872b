// The presets as data (preset/presets.h): every built-in preset file of
// resources/presets/ is embedded, loads, validates and has its explanation;
// it is an experiment file as --config reads it; the Fashion-MNIST stand-in;
// the user's preset folders ($XDG_DATA_HOME, $XDG_DATA_DIRS) and which one
// wins; each kind of broken preset file left out with one message naming the
// file, the others still offered. Through the binary and the window:
// tst_presetrecipe.
#include "testpaths.h"

#include "config/fields.h"
#include "preset/embeddedpresets.h"
#include "preset/presetfile.h"
#include "preset/presets.h"
#include "strategy/validation.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstdlib>

#include <unistd.h>

namespace {

const QString kPresetsDir = QString::fromUtf8(hwl::test::kSourceDir) + "/resources/presets";

QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY2(f.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
    f.write(bytes);
}

/// A small preset that loads: a user's, as docs/presets.md shows one.
const QByteArray kGoodJson = R"({
  "preset": {"title": "Two threads on a teacher task", "order": 5, "pace": 50},
  "model": "mlp:20-32-4",
  "dataset": "teacher:2000x20:4",
  "epochs": 2
})";
const QByteArray kGoodHtml = "<p>Two Hogwild threads on a small teacher task.</p>\n";

} // namespace

class TestPresets : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    QString home_; ///< $XDG_DATA_HOME/hogwild-lab/presets
    QString dirs_; ///< the first folder of $XDG_DATA_DIRS, with hogwild-lab/presets

    /// The presets and the problems, read now.
    static std::vector<hwl::Preset> read(std::vector<hwl::PresetProblem>& problems) {
        return hwl::presets(&problems);
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        qputenv("XDG_DATA_HOME", tmp_.filePath("home").toUtf8());
        qputenv("XDG_DATA_DIRS", (tmp_.filePath("system") + ":" + tmp_.filePath("more")).toUtf8());
        home_ = tmp_.filePath("home/hogwild-lab/presets");
        dirs_ = tmp_.filePath("system/hogwild-lab/presets");
    }

    void init() {
        QDir(tmp_.filePath("home")).removeRecursively();
        QDir(tmp_.filePath("system")).removeRecursively();
        qunsetenv("HWL_FASHION_MNIST_DIR");
    }

    // Every file of resources/presets/ is in the program, byte for byte, and
    // nothing else is: a built-in preset is its files.
    void everyPresetFileIsEmbedded() {
        QStringList onDisk = QDir(kPresetsDir).entryList({"*.json", "*.html"}, QDir::Files);
        QStringList embedded;
        for (const hwl::EmbeddedPresetFile& f : hwl::embeddedPresetFiles()) {
            embedded << QString::fromUtf8(f.name);
            QCOMPARE(QByteArray(f.text), fileBytes(kPresetsDir + "/" + f.name));
        }
        onDisk.sort();
        embedded.sort();
        QCOMPARE(embedded, onDisk);
    }

    // Each built-in preset file loads, validates (its runs too) and has its
    // explanation beside it; the folder holds no file that is not a preset's.
    void everyBuiltinPresetLoadsAndValidates() {
        std::vector<hwl::PresetProblem> problems;
        const std::vector<hwl::Preset> all = read(problems);
        for (const hwl::PresetProblem& p : problems)
            QFAIL(p.message.c_str());
        const QStringList files = QDir(kPresetsDir).entryList({"*.json"}, QDir::Files);
        QVERIFY(files.size() >= 14);
        QCOMPARE(hwl::builtinPresets().size(), std::size_t(files.size()));
        for (const QString& file : files) {
            const QString id = QFileInfo(file).completeBaseName();
            const hwl::Preset* p = hwl::findPreset(all, id.toStdString());
            QVERIFY2(p, qPrintable(file));
            QVERIFY2(p->file.empty(), qPrintable(file)); // built in, not read from a folder
            QVERIFY2(QFileInfo(kPresetsDir + "/" + id + ".html").size() > 0, qPrintable(id));
            QVERIFY2(!p->explanation.empty() && !p->name.empty(), qPrintable(id));
            QVERIFY2(hwl::validateExperiment(p->config).empty(), qPrintable(id));
            for (const hwl::PresetRun& r : p->compare)
                QVERIFY2(hwl::validateExperiment(r.config).empty(), qPrintable(id));
        }
        for (const QString& html : QDir(kPresetsDir).entryList({"*.html"}, QDir::Files)) {
            const QString id = html.section('.', 0, 0);
            QVERIFY2(files.contains(id + ".json"), qPrintable(html + " belongs to no preset"));
        }
        QCOMPARE(all.back().id, std::string("fashion-mnist")); // the menu's order: "order"
        QCOMPARE(all.front().id, std::string("hogwild-vs-locked"));
    }

    // A preset file is an experiment file: --config reads it (the "preset"
    // object left alone) into the preset's experiment.
    void aPresetFileIsAnExperimentFile() {
        qputenv("HWL_FASHION_MNIST_DIR", tmp_.filePath("no-fashion").toUtf8());
        for (const hwl::Preset& p : hwl::builtinPresets()) {
            hwl::ExperimentConfig c = hwl::ExperimentConfig::defaults();
            const std::vector<std::string> keys = c.mergeJsonFile(
                (kPresetsDir + "/" + QString::fromStdString(p.id) + ".json").toStdString());
            QVERIFY(std::find(keys.begin(), keys.end(), "preset") == keys.end());
            if (c.dataset == "fashion-mnist") // the stand-in where it is not installed
                QCOMPARE(p.config.dataset, std::string("teacher:60000x784:10:64"));
            else
                QCOMPARE(c.toJson(), p.config.toJson());
        }
    }

    // Without Fashion-MNIST a preset on it runs on the stand-in and says
    // so: its own stand-in text (fashion-mnist) or the note after its text.
    void fashionMnistStandIn() {
        qputenv("HWL_FASHION_MNIST_DIR", tmp_.filePath("no-fashion").toUtf8());
        const std::vector<hwl::Preset> all = hwl::builtinPresets();
        for (const char* id : {"fashion-mnist", "process-hogwild", "mnist-hogwild"}) {
            const hwl::Preset* p = hwl::findPreset(all, id);
            QVERIFY2(p, id);
            QCOMPARE(p->config.dataset, std::string("teacher:60000x784:10:64"));
            QVERIFY2(p->explanation.find("not installed") != std::string::npos, id);
        }
        const std::string standIn = hwl::findPreset(all, "fashion-mnist")->explanation;
        QVERIFY(standIn.find("On Fashion-MNIST") == std::string::npos); // replaced, not added to
        QVERIFY(hwl::findPreset(all, "lost-updates")->explanation.find("not installed") ==
                std::string::npos);
    }

    // The folders: $XDG_DATA_HOME's first, then $XDG_DATA_DIRS' in order;
    // a user's preset comes after the built-in ones, from its file.
    void userPresetsFromTheDataFolders() {
        const std::vector<std::filesystem::path> folders = hwl::presetFolders();
        QVERIFY(folders.size() >= 3);
        QCOMPARE(QString::fromStdString(folders[0].string()), home_);
        QCOMPARE(QString::fromStdString(folders[1].string()), dirs_);
        writeFile(dirs_ + "/two-threads.json", kGoodJson);
        writeFile(dirs_ + "/two-threads.html", kGoodHtml);
        writeFile(dirs_ + "/shadowed.json", kGoodJson);
        writeFile(dirs_ + "/shadowed.html", kGoodHtml);
        QByteArray mine = kGoodJson;
        writeFile(home_ + "/shadowed.json", mine.replace("Two threads", "Mine"));
        writeFile(home_ + "/shadowed.html", "<p>Mine.</p>");
        writeFile(home_ + "/README.txt", "not a preset");
        std::vector<hwl::PresetProblem> problems;
        const std::vector<hwl::Preset> all = read(problems);
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().message.c_str());
        const std::size_t builtins = hwl::builtinPresets().size();
        QCOMPARE(all.size(), builtins + 2);
        QCOMPARE(all[builtins].id, std::string("shadowed")); // by id at the same order
        QCOMPARE(all[builtins].name, std::string("Mine on a teacher task")); // the home's wins
        QCOMPARE(all[builtins].explanation, std::string("<p>Mine.</p>"));
        const hwl::Preset& p = all[builtins + 1];
        QCOMPARE(p.id, std::string("two-threads"));
        QCOMPARE(QString::fromStdString(p.file.string()), dirs_ + "/two-threads.json");
        QCOMPARE(p.pace, std::uint32_t(50));
        QCOMPARE(p.config.model, std::string("mlp:20-32-4"));
        QCOMPARE(p.config.epochs, 2);
        QCOMPARE(p.config.batch, hwl::ExperimentConfig::defaults().batch); // the rest: the default
        QCOMPARE(p.explanation, std::string("<p>Two Hogwild threads on a small teacher task.</p>"));
    }

    void brokenPresetFiles_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QByteArray>("html");
        QTest::addColumn<QString>("says");
        const auto row = [](const char* name, const QByteArray& json, const char* says,
                            const char* file = "bad.json", const QByteArray& html = kGoodHtml) {
            QTest::newRow(name) << file << json << html << says;
        };
        // A preset of title T with these fields beside "preset", or these keys in it.
        const auto fields = [](const QByteArray& more) {
            return R"({"preset": {"title": "T"}, )" + more + "}";
        };
        const auto described = [](const QByteArray& more) {
            return R"({"preset": {"title": "T", )" + more + "}}";
        };
        const auto comparing = [&](const QByteArray& runs) {
            return described(R"("compares": "throughput", "runs": )" + runs);
        };
        row("not JSON", "{\"preset\": ", "not valid JSON");
        row("no preset object", R"({"epochs": 2})", "no \"preset\" object");
        row("no title", R"({"preset": {"order": 1}})", "needs a \"title\"");
        row("unknown preset key", described(R"("colour": 1)"), "unknown key \"colour\"");
        row("unknown field", fields(R"("epoch": 2)"), "unknown field \"epoch\"");
        row("field out of range", fields(R"("workers": 0)"), "field \"workers\" must be in 1..");
        row("experiment invalid", fields(R"("dropout": 0.3)"),
            "invalid experiment:\n  dropout: dropout applies to the model's dropout layers");
        row("pace", described(R"("pace": -1)"), "\"pace\" must be a whole number from 0");
        row("invites no field", described(R"("invites": ["shares"])"),
            "\"invites\" names \"shares\", not a field");
        row("invites a field with no value", described(R"("invites": ["mode="])"),
            "\"invites\" names \"mode=\", not a field");
        row("compares without runs", described(R"("compares": "throughput")"),
            "\"compares\" goes with \"runs\"");
        row("runs without compares",
            described(R"("runs": [{"label": "a"}, {"label": "b", "workers": 3}])"),
            "says what it compares");
        row("first run differs", comparing(R"([{"label": "a", "workers": 3}, {"label": "b"}])"),
            "it differs in \"workers\"");
        row("run's field out of range",
            comparing(R"([{"label": "a"}, {"label": "b", "batch": 0}])"),
            ", run \"b\": field \"batch\" must be in 1..");
        row("run invalid", comparing(R"([{"label": "a"}, {"label": "b", "dropout": 0.3}])"),
            "run \"b\" is invalid:\n  dropout:");
        row("same label", comparing(R"([{"label": "a"}, {"label": "a", "workers": 3}])"),
            "the run label \"a\" must be unique");
        row("no explanation", kGoodJson, "no explanation beside it: write bad.html", "bad.json",
            QByteArray());
        row("empty explanation", kGoodJson, "bad.html, is empty", "bad.json", "\n  \n");
        row("a built-in's id", kGoodJson, "is the id of a built-in preset", "lost-updates.json");
        row("not an id", kGoodJson, "use lower-case letters, digits and dashes", "My Preset.json");
        row("a title taken", R"({"preset": {"title": "Hogwild vs locked"}})",
            "its title \"Hogwild vs locked\" is another preset's");
    }

    // A broken file is left out with one message that names it and says
    // what is wrong; the other presets, the user's good one included, stay.
    void brokenPresetFiles() {
        QFETCH(QString, file);
        QFETCH(QByteArray, json);
        QFETCH(QByteArray, html);
        QFETCH(QString, says);
        const QString path = home_ + "/" + file;
        writeFile(path, json);
        if (!html.isNull())
            writeFile(path.left(path.size() - 5) + ".html", html);
        writeFile(home_ + "/two-threads.json", kGoodJson);
        writeFile(home_ + "/two-threads.html", kGoodHtml);
        std::vector<hwl::PresetProblem> problems;
        const std::vector<hwl::Preset> all = read(problems);
        QCOMPARE(problems.size(), std::size_t(1));
        const QString message = QString::fromStdString(problems.front().message);
        QVERIFY2(message.startsWith("preset file \"" + path + "\""), qPrintable(message));
        QVERIFY2(message.contains(says), qPrintable(message));
        QCOMPARE(QString::fromStdString(problems.front().file.string()), path);
        QCOMPARE(all.size(), hwl::builtinPresets().size() + 1);
        QVERIFY(hwl::findPreset(all, "two-threads"));
        // --preset with its id names the file, not "no preset named".
        const std::string id = QFileInfo(file).completeBaseName().toStdString();
        if (!hwl::findPreset(all, id))
            QCOMPARE(hwl::presetNotFound(id, all, problems), problems.front().message);
    }

    // An unknown id lists the presets; a folder that cannot be read is said.
    void notFoundAndUnreadableFolder() {
        const std::vector<hwl::Preset> all = hwl::builtinPresets();
        QVERIFY(hwl::presetNotFound("nope", all, {})
                    .rfind("no preset named \"nope\"; the presets are hogwild-vs-locked, ", 0) ==
                0);
        if (::geteuid() == 0)
            QSKIP("root reads any folder: the unreadable one is not made");
        QVERIFY(QDir().mkpath(home_));
        QFile::setPermissions(home_, QFileDevice::WriteOwner); // no read, no search
        std::vector<hwl::PresetProblem> problems;
        (void)read(problems);
        QFile::setPermissions(home_, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                         QFileDevice::ExeOwner);
        QCOMPARE(problems.size(), std::size_t(1));
        QVERIFY2(QString::fromStdString(problems.front().message)
                     .startsWith("preset folder \"" + home_ + "\": cannot be read"),
                 problems.front().message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestPresets)
#include "tst_presets.moc"
