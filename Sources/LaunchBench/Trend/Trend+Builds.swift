import Foundation

extension Trend {
    /// For an A/B run's folder (`run NEW --against BASE`), whose points are its NEW build's: one note naming
    /// both builds and what the pairs said per device × kind; none for any other folder.
    static func buildsNote(path: String, folder: ResultsFolder) -> [String] {
        guard folder.manifest?.isABRun == true else { return [] }
        guard
            let paired = try? GateCheck(settings: GateSettings()).report(
                current: GateInput.load(path: path, role: .current)
            ).paired
        else { return ["\(path) is an A/B run; its base/ could not be read, so its points are NEW's alone."] }
        func version(_ role: String) -> String {
            paired.builds.first { $0.role == role }?.version ?? role.uppercased()
        }
        let verdicts = paired.entries.map { entry in
            "\(entry.device.name) \(entry.kind.rawValue) \(entry.verdict.rawValue)"
                + (entry.shift.map { " (\(GateText.signedPercent($0.shiftPercent)))" } ?? "")
        }
        return [
            "\(path) is an A/B run: its points are NEW \(version(RunManifest.newBuild)); against BASE "
                + "\(version(RunManifest.baseBuild)) in the same run its pairs said "
                + (verdicts.isEmpty ? "nothing (no pairs)" : verdicts.joined(separator: ", ")) + "."
        ]
    }
}
