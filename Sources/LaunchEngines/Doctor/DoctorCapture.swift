import Foundation
import LaunchBench

/// `launchbench doctor --capture DIR`: what a bug report needs, and nothing private. DIR is a new folder,
/// created 0700 before the doctor's first step (``prepare(_:)``), or an empty one of the user's: a folder
/// holding anything is refused rather than written into, since `--capture .` in a project would overwrite the
/// project's README.txt (a generated subfolder was the other choice; refusing keeps the report where the user
/// said, and says so at once instead of after a minute of checks). It gets the report, the phone's model and iOS, the launch's raw kdebug (its first data
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

    /// Makes `folder` ready for a capture, before the doctor's first step: a new folder is created 0700; an
    /// existing one must be an empty folder of this user's (not a link), and is made 0700.
    /// - Returns: whether the folder was created here (so a doctor that fails before writing can remove it).
    /// - Throws: `LaunchBenchError.refusedPath` naming the folder and what to pass instead; `.cannotWrite`.
    @discardableResult
    package static func prepare(_ folder: URL) throws -> Bool {
        let path = folder.path
        if mkdir(path, 0o700) == 0 {
            _ = chmod(path, 0o700)
            return true
        }
        let failure = errno
        guard failure == EEXIST else {
            throw LaunchBenchError.cannotWrite(
                path: path, reason: "the capture folder cannot be created (\(String(cString: strerror(failure))))")
        }
        var status = stat()
        guard lstat(path, &status) == 0 else {
            throw LaunchBenchError.cannotWrite(
                path: path, reason: "the capture folder cannot be read (\(String(cString: strerror(errno))))")
        }
        let problem: String?
        if status.st_mode & S_IFMT == S_IFLNK {
            problem = "it is a symbolic link"
        } else if status.st_mode & S_IFMT != S_IFDIR {
            problem = "it is a file, not a folder"
        } else if status.st_uid != geteuid() {
            problem = "it belongs to user id \(status.st_uid), not to you (\(geteuid()))"
        } else {
            let entries = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
            problem =
                entries.isEmpty
                ? nil
                : "it already holds \(entries.count) entr\(entries.count == 1 ? "y" : "ies") (\(entries.prefix(3).joined(separator: ", "))\(entries.count > 3 ? ", …" : "")), and a capture never overwrites files"
        }
        if let problem {
            throw LaunchBenchError.refusedPath(
                path: path, reason: "--capture needs a new or empty folder, and \(problem)",
                fix: "Pass --capture a folder that does not exist yet (it is created, readable by you only), e.g. "
                    + "--capture doctor-capture.")
        }
        _ = chmod(path, 0o700)
        return false
    }

    /// Writes the capture of `outcome` into `folder` (a new or empty folder, ``prepare(_:)``); returns the files
    /// written, relative.
    /// - Throws: `LaunchBenchError.refusedPath` or `.cannotWrite`.
    @discardableResult
    package static func write(_ outcome: DoctorOutcome, to folder: URL) throws -> [String] {
        try prepare(folder)
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
