import Foundation

/// The gate's report as JUnit XML, the format CI systems (Jenkins, GitLab, GitHub test reporters,
/// Azure, TeamCity…) show as test results.
///
/// One `<testcase>` per matched device × launch kind × metric (`classname` =
/// `launchbench.<product type>.<kind>`, `name` = device and metric): a `<failure>` on a
/// regression, an `<error>` when the data do not allow a verdict, a pass otherwise (the figures
/// are in `<system-out>`). With the dylib guard on, one more test case per unlisted image (or one
/// passing `dylib guard` case). Follows the common JUnit schema (Jenkins' junit-10.xsd structure):
/// `testsuites > testsuite > (properties?, testcase*, system-out?, system-err?)`,
/// `testcase > (skipped? | error* | failure*), system-out?`.
package enum GateJUnitReport {
    /// The report as a JUnit XML document, `timestamp` in the suite's attributes.
    package static func render(_ report: GateReport, timestamp: Date = Date()) -> String {
        var cases = JUnitCases()
        for entry in report.comparison?.entries ?? [] { appendCase(entry, to: &cases) }
        for entry in report.paired?.entries ?? [] { appendCase(entry, to: &cases) }
        if let violations = report.dylibViolations { appendDylibGuard(violations, to: &cases) }
        let stamp = timestamp.formatted(
            Date.ISO8601FormatStyle().year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
                .timeSeparator(.colon))
        let notes =
            (report.notes + (report.comparison?.notes ?? []) + (report.paired?.notes ?? [])
            + report.referenceGaps.map(\.sentence) + report.sampleSizes
            + [report.headline])
            .joined(separator: "\n")
        let counts = "tests=\"\(cases.xml.count)\" failures=\"\(cases.failures)\" errors=\"\(cases.errors)\""
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"launchbench\" \(counts) time=\"0\">\n"
        xml +=
            "  <testsuite name=\"launchbench gate\" \(counts) skipped=\"0\" time=\"0\" timestamp=\"\(stamp)\" id=\"0\" package=\"launchbench\" hostname=\"\(XMLText.attribute(ProcessInfo.processInfo.hostName))\">\n"
        xml += cases.xml.joined()
        xml += "    <system-out>\(XMLText.text(notes))</system-out>\n"
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// A baseline comparison's entry: its figures, and on a regression the reason and why it moved.
    private static func appendCase(_ entry: GateEntry, to cases: inout JUnitCases) {
        let figures =
            "baseline median \(GateText.ms(entry.baseline.median)) ms (n=\(entry.baseline.values.count), \(entry.baseline.failures) failed), "
            + "current median \(GateText.ms(entry.current.median)) ms (n=\(entry.current.values.count), \(entry.current.failures) failed), "
            + "median change \(GateText.signedPercent(entry.medianChangePercent)), shift \(GateText.signedPercent(entry.shiftPercent)) "
            + "\(GateText.interval(entry.shiftLowPercent, entry.shiftHighPercent)), \(GateText.pPhrase(entry.test?.pValue)). "
            + entry.reason
            + (entry.explanationSentence.map { " Why: \($0)." } ?? "")
            + (entry.explanation.map { "\n" + GateText.explanationLines($0).joined(separator: "\n") } ?? "")
        cases.append(
            name:
                "\(entry.currentDevice.name) (\(entry.currentDevice.udid)) \(entry.kind.rawValue) \(entry.metric.rawValue)",
            classname: "launchbench.\(entry.currentDevice.productType).\(entry.kind.rawValue)", verdict: entry.verdict,
            failureMessage: entry.reason + (entry.explanationSentence.map { " \($0)." } ?? ""),
            errorMessage: entry.reason, figures: figures)
    }

    /// An A/B run's entry: one case per device × kind × metric, as the baseline comparison's.
    private static func appendCase(_ entry: PairedEntry, to cases: inout JUnitCases) {
        cases.append(
            name: "\(entry.device.name) (\(entry.device.udid)) \(entry.kind.rawValue) \(entry.metric.rawValue)",
            classname: "launchbench.ab.\(entry.device.productType).\(entry.kind.rawValue)", verdict: entry.verdict,
            failureMessage: entry.reason, errorMessage: entry.reason, figures: PairedText.line(entry))
    }

    /// One failing case per unlisted image, or one passing `dylib guard` case when there are none.
    private static func appendDylibGuard(_ violations: [DylibGuard.Violation], to cases: inout JUnitCases) {
        if violations.isEmpty {
            cases.xml.append("    <testcase name=\"dylib guard\" classname=\"launchbench.dylibs\" time=\"0\"/>\n")
        }
        for violation in violations {
            cases.failures += 1
            cases.xml.append(
                "    <testcase name=\"\(XMLText.attribute("dylib guard: " + violation.image + (violation.deviceUDID.map { " on " + $0 } ?? "")))\" classname=\"launchbench.dylibs\" time=\"0\">\n"
                    + "      <failure message=\"\(XMLText.attribute(violation.description))\" type=\"unlisted-dylib\">\(XMLText.text(violation.description))</failure>\n"
                    + "    </testcase>\n")
        }
    }
}

/// The suite's test cases so far, and how many of them failed or could not judge.
private struct JUnitCases {
    var xml: [String] = []
    var failures = 0
    var errors = 0

    /// One verdict's case: a `<failure>` on a regression, an `<error>` when the data allow no verdict,
    /// a pass otherwise; the figures always in `<system-out>`.
    mutating func append(
        name: String, classname: String, verdict: GateVerdict, failureMessage: String, errorMessage: String,
        figures: String
    ) {
        var body = ""
        switch verdict {
        case .regression:
            failures += 1
            body +=
                "      <failure message=\"\(XMLText.attribute(failureMessage))\" type=\"regression\">\(XMLText.text(figures))</failure>\n"
        case .insufficientData, .notComparable:
            errors += 1
            body +=
                "      <error message=\"\(XMLText.attribute(errorMessage))\" type=\"\(verdict.rawValue)\">\(XMLText.text(figures))</error>\n"
        case .improvement, .unchanged:
            break
        }
        body += "      <system-out>\(XMLText.text(figures))</system-out>\n"
        xml.append(
            "    <testcase name=\"\(XMLText.attribute(name))\" classname=\"\(XMLText.attribute(classname))\" time=\"0\">\n\(body)    </testcase>\n"
        )
    }
}

/// Escaping for XML 1.0: markup characters become entities, and characters XML 1.0 cannot hold at
/// all (most control characters, lone surrogates cannot occur in Swift strings) are dropped.
enum XMLText {
    static func text(_ value: String) -> String { escape(value, quotes: false) }
    static func attribute(_ value: String) -> String { escape(value, quotes: true) }

    private static func escape(_ value: String, quotes: Bool) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where quotes: out += "&quot;"
            case "\n" where quotes: out += "&#10;"
            case "\t" where quotes: out += "&#9;"
            case "\r": out += "&#13;"
            default:
                let v = scalar.value
                let allowed =
                    v == 0x9 || v == 0xA || (0x20...0xD7FF).contains(v) || (0xE000...0xFFFD).contains(v) || v >= 0x10000
                if allowed { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
