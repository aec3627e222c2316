import Foundation

/// Short, unique unix socket paths for test labs: directly in /tmp (macOS's $TMPDIR is too long for
/// `sun_path`), named after the process and a random suffix. The lab removes the file when it stops.
package enum TestSocketPath {
    /// A path like `/tmp/lbt-12345-1a2b3c4d.sock` that does not exist yet.
    package static func make(prefix: String = "lbt") -> String {
        let pid = ProcessInfo.processInfo.processIdentifier
        let random = UInt32.random(in: 0...UInt32.max)
        return "/tmp/\(prefix)-\(pid)-\(String(random, radix: 16)).sock"
    }
}
