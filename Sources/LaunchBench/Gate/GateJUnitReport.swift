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
        var cases: [String] = []
        var failures = 0
        var errors = 0
        for entry in report.comparison?.entries ?? [] {
            let classname = "launchbench.\(entry.currentDevice.productType).\(entry.kind.rawValue)"
            let name =
                "\(entry.currentDevice.name) (\(entry.currentDevice.udid)) \(entry.kind.rawValue) \(entry.metric.rawValue)"
            let figures =
                "baseline median \(GateText.ms(entry.baseline.median)) ms (n=\(entry.baseline.values.count), \(entry.baseline.failures) failed), "
                + "current median \(GateText.ms(entry.current.median)) ms (n=\(entry.current.values.count), \(entry.current.failures) failed), "
                + "median change \(GateText.signedPercent(entry.medianChangePercent)), shift \(GateText.signedPercent(entry.shiftPercent)) "
                + "\(GateText.interval(entry.shiftLowPercent, entry.shiftHighPercent)), \(GateText.pPhrase(entry.test?.pValue)). "
                + entry.reason
                + (entry.explanationSentence.map { " Why: \($0)." } ?? "")
                + (entry.explanation.map { "\n" + GateText.explanationLines($0).joined(separator: "\n") } ?? "")
            let message = entry.reason + (entry.explanationSentence.map { " \($0)." } ?? "")
            var body = ""
            switch entry.verdict {
            case .regression:
                failures += 1
                body +=
                    "      <failure message=\"\(XMLText.attribute(message))\" type=\"regression\">\(XMLText.text(figures))</failure>\n"
            case .insufficientData, .notComparable:
                errors += 1
                body +=
                    "      <error message=\"\(XMLText.attribute(entry.reason))\" type=\"\(entry.verdict.rawValue)\">\(XMLText.text(figures))</error>\n"
            case .improvement, .unchanged:
                break
            }
            body += "      <system-out>\(XMLText.text(figures))</system-out>\n"
            cases.append(
                "    <testcase name=\"\(XMLText.attribute(name))\" classname=\"\(XMLText.attribute(classname))\" time=\"0\">\n\(body)    </testcase>\n"
            )
        }
        for entry in report.paired?.entries ?? [] {
            // An A/B run: one case per device × kind × metric, as the baseline comparison's.
            let classname = "launchbench.ab.\(entry.device.productType).\(entry.kind.rawValue)"
            let name = "\(entry.device.name) (\(entry.device.udid)) \(entry.kind.rawValue) \(entry.metric.rawValue)"
            let figures = PairedText.line(entry)
            var body = ""
            switch entry.verdict {
            case .regression:
                failures += 1
                body +=
                    "      <failure message=\"\(XMLText.attribute(entry.reason))\" type=\"regression\">\(XMLText.text(figures))</failure>\n"
            case .insufficientData, .notComparable:
                errors += 1
                body +=
                    "      <error message=\"\(XMLText.attribute(entry.reason))\" type=\"\(entry.verdict.rawValue)\">\(XMLText.text(figures))</error>\n"
            case .improvement, .unchanged:
                break
            }
            body += "      <system-out>\(XMLText.text(figures))</system-out>\n"
            cases.append(
                "    <testcase name=\"\(XMLText.attribute(name))\" classname=\"\(XMLText.attribute(classname))\" time=\"0\">\n\(body)    </testcase>\n"
            )
        }
        if let violations = report.dylibViolations {
            if violations.isEmpty {
                cases.append("    <testcase name=\"dylib guard\" classname=\"launchbench.dylibs\" time=\"0\"/>\n")
            }
            for violation in violations {
                failures += 1
                cases.append(
                    "    <testcase name=\"\(XMLText.attribute("dylib guard: " + violation.image + (violation.deviceUDID.map { " on " + $0 } ?? "")))\" classname=\"launchbench.dylibs\" time=\"0\">\n"
                        + "      <failure message=\"\(XMLText.attribute(violation.description))\" type=\"unlisted-dylib\">\(XMLText.text(violation.description))</failure>\n"
                        + "    </testcase>\n")
            }
        }
        let stamp = timestamp.formatted(
            Date.ISO8601FormatStyle().year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
                .timeSeparator(.colon))
        let notes =
            (report.notes + (report.comparison?.notes ?? []) + (report.paired?.notes ?? [])
            + report.referenceGaps.map(\.sentence) + report.sampleSizes
            + [report.headline])
            .joined(separator: "\n")
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml +=
            "<testsuites name=\"launchbench\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"0\">\n"
        xml +=
            "  <testsuite name=\"launchbench gate\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"0\" time=\"0\" timestamp=\"\(stamp)\" id=\"0\" package=\"launchbench\" hostname=\"\(XMLText.attribute(ProcessInfo.processInfo.hostName))\">\n"
        xml += cases.joined()
        xml += "    <system-out>\(XMLText.text(notes))</system-out>\n"
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
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
