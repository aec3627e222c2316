/// `launchbench doctor`'s finding on one phone: a row per step, in order; the phone is ready for a run when
/// every step a run needs holds (an unknown one does not count as holding).
package struct DoctorReport: Sendable, Hashable {
    /// The phone checked (`nil` when none could be reached).
    package var device: DeviceInfo?
    package var rows: [DoctorRow]

    /// A report on `device` with `rows`.
    package init(device: DeviceInfo?, rows: [DoctorRow] = []) {
        self.device = device
        self.rows = rows
    }

    /// Whether what a run needs holds: the exit status is 0 only then.
    package var ready: Bool { rows.allSatisfy { !$0.needed || $0.state == .holds } }

    /// The row of `step`, if it was checked.
    package subscript(_ step: DoctorStep) -> DoctorRow? { rows.first { $0.step == step } }

    /// Rows for `steps` not checked because of `reason` (the device went away, an earlier step failed).
    package static func unchecked(_ steps: [DoctorStep], because reason: String) -> [DoctorRow] {
        steps.map { .unknown($0, reason, needed: $0.neededByDefault) }
    }

    /// The table (STEP, STATE, NEEDED, DETAIL), then one line per failing step with its fix, then the verdict;
    /// text from the phone is escaped (`UserText`), so a device name cannot add lines.
    package func render() -> String {
        var table = TextTable(headers: ["STEP", "STATE", "NEEDED", "DETAIL"])
        for row in rows {
            table.append([row.step.rawValue, row.state.rawValue, row.needed ? "yes" : "no", row.detail])
        }
        var text = ""
        if let device {
            text +=
                UserText.logLine(
                    "\(device.name) (\(device.modelName), iOS \(device.osVersion) \(device.buildVersion), \(device.udid))"
                )
                + "\n"
        }
        text += table.render() + "\n"
        let fixes = rows.filter { $0.state == .fails && $0.fix != nil }
        if !fixes.isEmpty {
            text += "\nFixes:\n"
            for row in fixes { text += "  " + UserText.logLine("\(row.step.rawValue): \(row.fix!)") + "\n" }
        }
        let failing = rows.filter { $0.needed && $0.state == .fails }.map(\.step.rawValue)
        let unknown = rows.filter { $0.needed && $0.state == .unknown }.count
        if failing.isEmpty && unknown == 0 {
            text += "\nReady: every step a run needs holds.\n"
        } else {
            let fails =
                failing.isEmpty ? "" : "\(failing.joined(separator: ", ")) \(failing.count == 1 ? "fails" : "fail")"
            let unknowns = unknown == 0 ? "" : "\(unknown) needed step\(unknown == 1 ? " is" : "s are") unknown"
            text += "\nNot ready: " + [fails, unknowns].filter { !$0.isEmpty }.joined(separator: "; ") + ".\n"
        }
        return text
    }
}
