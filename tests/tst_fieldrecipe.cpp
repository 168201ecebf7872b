// The recipe "add a field" (docs/architecture.md), walked over every field
// of the table: a field is one entry of config/fields.cpp, and each surface
// gets what it is from that entry alone. For each field and each mode of the
// catalog:
//   - the validator refuses it set where it does not apply (its setting,
//     what it needs), naming the modes it applies to, and says nothing of it
//     where it applies;
//   - --help (and so the man page, the completion and docs/command-line.md,
//     which hwl-docgen writes from it) says which modes it applies to;
//   - the window's form has an editor for it, shows and enables its row
//     exactly where it applies (an Advanced one behind the toggle), and
//     writes its default where it does not.
// A field added to the table without a form editor, or a surface that keeps
// its own list of which mode takes what, fails here.
#include "config/fields.h"
#include "form/experimentform.h"
#include "guitestmain.h"
#include "strategy/catalog.h"
#include "strategy/validation.h"
#include "testutil.h"
#include "util/errors.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using hwl::ExperimentConfig;
using hwl::Field;
using hwl::FieldType;
using hwl::FieldValue;
using hwl::StrategyTraits;

namespace {

/// The fields the window does not edit in its form: where a run starts
/// from and where it writes are chosen by the Run menu's dialogs, and the
/// window's model.onnx always normalises the raw features
/// (onnx-normalized-inputs is the command line's and the file's).
const QStringList kNotInTheForm = {"init", "resume", "out", "tensorboard",
                                   "onnx-normalized-inputs"};

/// A value of `f` other than its default, valid as far as the field itself
/// goes.
FieldValue otherValue(const Field& f) {
    const FieldValue d = f.get(ExperimentConfig{});
    switch (f.type) {
    case FieldType::Switch:
        return !std::get<bool>(d);
    case FieldType::Integer:
        return std::get<std::int64_t>(d) == std::int64_t(f.max) ? std::int64_t(f.min)
                                                                : std::int64_t(f.max);
    case FieldType::Number: // the middle where the maximum is not in the range (momentum)
        return std::get<double>(d) == f.max || f.maxOpen ? (f.min + f.max) / 2 : f.max;
    case FieldType::Seed:
        return std::get<std::uint64_t>(d) + 1;
    case FieldType::Choice:
        for (const std::string& c : f.choices())
            if (c != std::get<std::string>(d))
                return c;
        break;
    case FieldType::Text:
        return std::get<std::string>(d) + "x";
    }
    qFatal("no other value for %s", f.key);
}

/// An experiment that selects mode variant `t`, with what a field may need
/// (transport mpi) when `needsMet`.
ExperimentConfig configFor(const StrategyTraits& t, bool needsMet) {
    ExperimentConfig c;
    c.mode = t.name;
    c.share = t.share;
    if (t.cuda && t.takes(hwl::StrategySetting::Device))
        c.device = hwl::Device::Cuda;
    if (needsMet)
        c.transport = hwl::Transport::Mpi;
    return c;
}

bool appliesToMessage(const std::vector<hwl::ConfigIssue>& issues, const char* key) {
    for (const auto& i : issues)
        if (i.field == key && i.message.find("applies to") != std::string::npos)
            return true;
    return false;
}

void chooseMode(hwl::ui::ExperimentForm& form, const ExperimentConfig& c) {
    ExperimentConfig shown = form.config();
    shown.mode = c.mode;
    shown.share = c.share;
    shown.device = c.device;
    shown.transport = c.transport;
    form.setConfig(shown);
}

bool rowShown(const hwl::ui::ExperimentForm& form, QWidget* editor) {
    return editor->isVisibleTo(&form);
}

} // namespace

class TestFieldRecipe : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        hwl::test::isolateSettings(tmp_.path());
    }

    // The validator reads Field::setting and Field::needs: set where it does
    // not apply, refused with the modes it applies to; where it applies, no
    // "applies to" of it.
    void validatorRefusesAFieldWhereItDoesNotApply() {
        int refusals = 0;
        for (const Field& f : hwl::experimentFields()) {
            if (!f.refusedElsewhere || (!f.setting && !f.needs))
                continue;
            for (const StrategyTraits* t : hwl::allStrategies()) {
                if (!t->unavailable.empty())
                    continue;
                for (const bool needsMet : {false, true}) {
                    ExperimentConfig c = configFor(*t, needsMet);
                    if (f.key != std::string("transport") || !needsMet)
                        f.set(c, otherValue(f));
                    const bool applies = hwl::fieldApplies(f, *t, c);
                    const auto issues = hwl::validateExperiment(c);
                    const QString what = QStringLiteral("%1 on %2 (share %3, transport %4)")
                                             .arg(f.key, QString::fromStdString(t->name))
                                             .arg(t->share)
                                             .arg(hwl::toString(c.transport));
                    QVERIFY2(appliesToMessage(issues, f.key) == !applies, qPrintable(what));
                    if (applies)
                        continue;
                    ++refusals;
                    if (!f.setting || t->takes(*f.setting))
                        continue;
                    // The message names the modes, as --help does.
                    for (const auto& i : issues)
                        if (i.field == f.key && i.message.find("applies to") != std::string::npos)
                            for (const std::string& m : hwl::modesTaking(*f.setting))
                                QVERIFY2(i.message.find(m) != std::string::npos,
                                         qPrintable(what + ": " + QString::fromStdString(m)));
                }
            }
        }
        QVERIFY2(refusals > 40, qPrintable(QString::number(refusals)));
    }

    // Issue 50, point 9: the same walk for a field the user gives (a flag,
    // a file's key), at its default: refused where it does not apply,
    // whatever its value (--optimizer rmsprop --momentum 0.9 trained plain
    // RMSprop), named by its flag; the same default not given says nothing.
    // Every pair: each field, mode variant, optimizer and need.
    void aGivenFieldIsRefusedWhereItDoesNotApply() {
        const ExperimentConfig d;
        const Field* optimizer = hwl::findField("optimizer");
        int refusals = 0, accepted = 0;
        for (const Field& f : hwl::experimentFields()) {
            if ((!f.setting && !f.needs) || f.judgedByMode)
                continue;
            for (const StrategyTraits* t : hwl::allStrategies())
                for (const std::string& rule : optimizer->choices())
                    for (const bool needsMet : {false, true}) {
                        if (!t->unavailable.empty())
                            continue;
                        ExperimentConfig c = configFor(*t, needsMet);
                        optimizer->set(c, rule);
                        c.cudaBeforeFork = needsMet && f.key == std::string("force-unsafe-fork");
                        const bool applies = hwl::fieldApplies(f, *t, c);
                        const QString what = QStringLiteral("%1 on %2 (share %3, %4, needs %5)")
                                                 .arg(f.key, QString::fromStdString(t->name))
                                                 .arg(t->share)
                                                 .arg(QString::fromStdString(rule))
                                                 .arg(needsMet);
                        if (f.get(c) == f.get(d))
                            QVERIFY2(!appliesToMessage(hwl::validateExperiment(c), f.key),
                                     qPrintable(what + ": refused, not given"));
                        const std::string flag = std::string("--") + f.key;
                        c.markGiven(f.key, flag);
                        QVERIFY2(appliesToMessage(hwl::validateExperiment(c), f.key) == !applies,
                                 qPrintable(what));
                        (applies ? accepted : refusals)++;
                        if (applies)
                            continue;
                        QString why;
                        try {
                            hwl::validateExperimentOrThrow(c);
                        } catch (const hwl::InputError& e) {
                            why = QString::fromUtf8(e.what());
                        }
                        QVERIFY2(why.contains(QString::fromStdString("\n  " + flag + ": ")) &&
                                     why.contains("; drop "),
                                 qPrintable(what + ": " + why));
                    }
        }
        QVERIFY2(refusals > 500 && accepted > 100,
                 qPrintable(QStringLiteral("%1 refused, %2 accepted").arg(refusals).arg(accepted)));
    }

    // --help says which modes each field applies to, from the same entry.
    void helpSaysWhereEachFieldApplies() {
        const std::string help = hwl::experimentHelp();
        for (const Field& f : hwl::experimentFields()) {
            const std::string modes = hwl::fieldModesText(f);
            if (modes.empty())
                continue;
            const std::string flag = std::string("\n  --") + f.key;
            std::size_t at = help.find(flag + " ");
            at = at == std::string::npos ? help.find(flag + "\n") : at;
            QVERIFY2(at != std::string::npos, f.key);
            // The entry runs to the next flag; --help wraps at spaces.
            const std::string entry = help.substr(at, help.find("\n  --", at + 1) - at);
            QString flat = QString::fromStdString(entry).simplified();
            QVERIFY2(flat.contains(QString::fromStdString("(" + modes)),
                     qPrintable(flat + " lacks " + QString::fromStdString(modes)));
        }
    }

    // The form has an editor for every field of the table (but the Run
    // menu's), shown and enabled exactly where its field applies.
    void formShowsEachFieldWhereItApplies() {
        hwl::ui::ExperimentForm form;
        auto* advanced = form.findChild<QToolButton*>("advancedToggle");
        QVERIFY(advanced);
        for (const Field& f : hwl::experimentFields())
            QVERIFY2(form.fieldWidget(QLatin1String(f.key)) ||
                         kNotInTheForm.contains(QLatin1String(f.key)),
                     qPrintable(QStringLiteral("no editor for field %1").arg(f.key)));
        for (const bool open : {true, false}) {
            if (advanced->isChecked() != open)
                advanced->click();
            for (const StrategyTraits* t : hwl::allStrategies())
                for (const bool needsMet : {false, true}) {
                    ExperimentConfig c = configFor(*t, needsMet);
                    if (needsMet && !t->takes(hwl::StrategySetting::Transport))
                        continue;
                    chooseMode(form, c);
                    c = form.config();
                    for (const Field& f : hwl::experimentFields()) {
                        QWidget* editor = form.fieldWidget(QLatin1String(f.key));
                        if (!editor || (!f.setting && !f.needs))
                            continue;
                        const bool applies = hwl::fieldApplies(f, c);
                        const QString what = QStringLiteral("%1 on %2 (share %3, advanced %4)")
                                                 .arg(f.key, QString::fromStdString(t->name))
                                                 .arg(t->share)
                                                 .arg(open);
                        // A field its mode judges itself (Field::refusedElsewhere
                        // false) may be greyed where it applies: start-method
                        // for threads, workers where the mode fixes them.
                        QVERIFY2(editor->isEnabled() == applies || !f.refusedElsewhere,
                                 qPrintable(what));
                        // Shown greyed too: workers where the mode fixes
                        // them, and a row of the Parallelism group that Share
                        // parameters turns on while it is off (ticking Share
                        // moves no row; optimizer-state shares the rate's
                        // row, so it moves none either way).
                        ExperimentConfig otherShare = c;
                        otherShare.share = !c.share;
                        const bool greyed = f.key == std::string("workers") ||
                                            (t->takes(hwl::StrategySetting::Share) &&
                                             f.key != std::string("share") &&
                                             f.key != std::string("optimizer-state") &&
                                             hwl::fieldApplies(f, otherShare));
                        const bool expected = (applies || greyed) && (!f.advanced || open);
                        QVERIFY2(rowShown(form, editor) == expected, qPrintable(what));
                    }
                }
        }
    }

    // Where a field does not apply, the form writes its default, whatever
    // its hidden editor holds: the validator would refuse the value there.
    void formWritesTheDefaultWhereAFieldDoesNotApply() {
        hwl::ui::ExperimentForm form;
        ExperimentConfig all = form.config();
        for (const Field& f : hwl::experimentFields())
            if ((f.setting || f.needs) && f.refusedElsewhere &&
                form.fieldWidget(QLatin1String(f.key)))
                f.set(all, otherValue(f));
        all.mode = hwl::modes::threads;
        all.hostfile.clear(); // the form's hostfile row is a path
        form.setConfig(all);
        const ExperimentConfig written = form.config();
        const ExperimentConfig d;
        const StrategyTraits* threads = hwl::findStrategy(written);
        QVERIFY(threads);
        for (const Field& f : hwl::experimentFields())
            if ((f.setting || f.needs) && f.refusedElsewhere && !hwl::fieldApplies(f, written))
                QVERIFY2(f.get(written) == f.get(d), f.key);
        const auto issues = hwl::validateExperiment(written);
        QVERIFY2(issues.empty(), issues.empty() ? "" : issues.front().message.c_str());
    }
};

HWL_GUI_TEST_MAIN(TestFieldRecipe)
#include "tst_fieldrecipe.moc"
