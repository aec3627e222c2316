import Foundation

/// What the command's output streams are connected to, and whether colour is allowed.
enum Terminal {
    /// stderr is a terminal: live progress lines may redraw in place.
    static var stderrIsInteractive: Bool { isatty(STDERR_FILENO) == 1 }

    /// Colour only on a terminal, never with `NO_COLOR` (https://no-color.org) or `TERM=dumb`.
    static func colorEnabled(for fd: Int32) -> Bool {
        let env = ProcessInfo.processInfo.environment
        if let noColor = env["NO_COLOR"], !noColor.isEmpty { return false }
        if env["TERM"] == "dumb" { return false }
        return isatty(fd) == 1
    }

    /// Writes a line to stderr (progress and diagnostics never go to stdout).
    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
