// The layout rules of ARCHITECTURE.md, checked on the source tree:
//   - ui/ and app/ (the window and the CLI monitor) include only the
//     engine's public headers (core/CMakeLists.txt's HWL_PUBLIC_HEADERS),
//     and a public header includes only public headers;
//   - no source file is over 600 lines;
//   - no function in core/ or ui/ is over 80 lines.
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kRoot = QStringLiteral(HWL_SOURCE_DIR);

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
    const QStringList list = QStringLiteral(HWL_PUBLIC_HEADER_LIST).split(',', Qt::SkipEmptyParts);
    return QSet<QString>(list.begin(), list.end());
}

/// Functions longer than `limit` lines, as "file:line (N lines)". Works on
/// clang-formatted code (namespaces not indented): a function defined at
/// namespace level starts at a line in column 0 and ends at a "}" in column
/// 0; one defined in a class body is indented by 4 and ends at "    }".
QStringList longFunctions(const QString& path, int limit) {
    static const QRegularExpression notAFunction(
        QString::fromLatin1("^\\s*(namespace|using|class|struct|enum|union|extern|typedef|"
                            "static_assert|template|#|//|/\\*|\\*|\\}|public:|private:|"
                            "protected:|signals:)"));
    const QStringList lines = readLines(path);
    QStringList found;
    for (const int indent : {0, 4}) {
        const QString pad(indent, ' ');
        int start = -1;
        bool body = false; // a '{' since start: past the signature
        for (int i = 0; i < lines.size(); ++i) {
            const QString& line = lines[i];
            const bool atIndent = line.startsWith(pad) && line.size() > indent &&
                                  line[indent] != ' ' && line[indent] != '\t';
            if (start < 0 && atIndent && !notAFunction.match(line).hasMatch()) {
                start = i;
                body = false;
            }
            if (start < 0)
                continue;
            body = body || line.contains('{');
            if (!body && line.trimmed().endsWith(';')) // a declaration, not a definition
                start = -1;
            else if (line == pad + "};") // an initialised variable or a lambda
                start = -1;
            else if (line == pad + "}") {
                if (i - start + 1 > limit)
                    found << QStringLiteral("%1:%2 (%3 lines)")
                                 .arg(path.startsWith(kRoot) ? path.mid(kRoot.size() + 1) : path)
                                 .arg(start + 1)
                                 .arg(i - start + 1);
                start = -1;
            }
        }
    }
    return found;
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
