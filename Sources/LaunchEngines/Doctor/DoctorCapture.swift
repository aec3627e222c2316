import Foundation
import LaunchBench

/// `launchbench doctor --capture DIR`: what a bug report needs, and nothing private. DIR is created 0700
/// (`PrivateFolder`). It gets the report, the phone's model and iOS, the launch's raw kdebug (its first data
/// message, the RAW_VERSION2 header, included) with `launchbench parse`'s table of it, the launch's log and the
/// engines' logs (the kdebug helper's holds machTimeInfo's reply and the session's first messages). No pair
/// record, key, certificate or host ID is copied, and a log line that names one is withheld.
package enum DoctorCapture {
    /// Lockdown and pair-record keys whose lines are withheld from the copied logs.
    static let privateKeys = [
        "HostID", "SystemBUID", "HostPrivateKey", "RootPrivateKey", "DeviceCertificate", "HostCertificate",
        "RootCertificate", "EscrowBag", "WiFiMACAddress", "PairRecord",
    ]

    /// What `README.txt` in the folder says it holds.
    static let readme = """
        launchbench doctor capture: attach this folder to a bug report.
          doctor.txt           the table doctor printed
          device.json          the phone's model and iOS (no name, no serial number)
          kdebug/              the launch's raw kdebug (RAW_VERSION2; its first data message, the header, included)
          kdebug-parse.txt     `launchbench parse` of it
          logs/                the launch's output and the engines' logs (pymobiledevice3, the kdebug tap: it
                               logs machTimeInfo's whole reply and the session's first four messages)
        Not included: the pair record, keys, certificates and host IDs (a log line naming one is withheld).

        """

    /// Writes the capture of `outcome` into `folder` (created 0700); returns the files written, relative.
    /// - Throws: `LaunchBenchError.unsafeFolder` or `.cannotWrite`.
    @discardableResult
    package static func write(_ outcome: DoctorOutcome, to folder: URL) throws -> [String] {
        let folder = try PrivateFolder.ensure(folder)
        var written: [String] = []
        func put(_ data: Data, _ relative: String) throws {
            let url = folder.appendingPathComponent(relative)
            do {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
                try data.write(to: url, options: .atomic)
            } catch {
                throw LaunchBenchError.cannotWrite(path: url.path, reason: error.localizedDescription)
            }
            written.append(relative)
        }
        try put(Data(readme.utf8), "README.txt")
        try put(Data(outcome.report.render().utf8), "doctor.txt")
        if let device = outcome.report.device {
            let fields = [
                "productType": device.productType, "modelName": device.modelName, "osVersion": device.osVersion,
                "buildVersion": device.buildVersion,
            ]
            try put(
                try JSONSerialization.data(withJSONObject: fields, options: [.prettyPrinted, .sortedKeys]),
                "device.json")
        }
        guard let run = outcome.runFolder else { return written }
        let manager = FileManager.default
        for top in ["kdebug", "logs"] {
            let root = run.appendingPathComponent(top)
            guard let files = manager.enumerator(atPath: root.path) else { continue }
            for case let relative as String in files {
                let url = root.appendingPathComponent(relative)
                var isFolder: ObjCBool = false
                guard manager.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue,
                    let data = manager.contents(atPath: url.path)
                else { continue }
                let path = top + "/" + relative
                if top == "kdebug" {
                    try put(data, path)
                    if let file = try? KdebugFile.read([UInt8](data)) {
                        let timebase = KdebugFile.timebase(of: file.trace.header).timebase
                        let launches = KdebugLaunches.find(in: file.trace, timebase: timebase)
                        let parsed = ParsedKdebugFile(file: path, launches: launches)
                        try put(Data(KdebugParseReport.table([parsed]).utf8), "kdebug-parse.txt")
                    }
                } else {
                    try put(Data(withholdingPrivateLines(String(decoding: data, as: UTF8.self)).utf8), path)
                }
            }
        }
        return written
    }

    /// `text` with every line that names a private key replaced by a note saying so.
    static func withholdingPrivateLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard let key = privateKeys.first(where: { line.contains($0) }) else { return String(line) }
            return "[launchbench doctor: a line naming \(key) was withheld]"
        }.joined(separator: "\n")
    }
}
