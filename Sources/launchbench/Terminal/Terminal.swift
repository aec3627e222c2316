import Foundation
import LaunchBench

/// What the command's output streams are connected to, and whether colour is allowed.
enum Terminal {
    /// stderr is a terminal that can redraw live progress lines in place (not `TERM=dumb`, not a CI log).
    static var stderrIsInteractive: Bool {
        TerminalCapabilities.redrawsInPlace(
            isTerminal: isatty(STDERR_FILENO) == 1, environment: ProcessInfo.processInfo.environment)
    }

    /// Colour only on a terminal, never with `NO_COLOR` (https://no-color.org) or `TERM=dumb`.
    static func colorEnabled(for fd: Int32) -> Bool {
        let env = ProcessInfo.processInfo.environment
        if let noColor = env["NO_COLOR"], !noColor.isEmpty { return false }
        if env["TERM"] == "dumb" { return false }
        return isatty(fd) == 1
    }

    /// Writes a line to stderr (progress and diagnostics never go to stdout). A note is one line: a line break
    /// or control character inside it (a phone named `Lab\r\nGate: PASSED`) is shown as `\u{…}`
    /// (`UserText.logLine`), so no note can print a line of its own in a CI log.
    static func note(_ text: String) {
        write(UserText.logLine(text) + "\n", to: STDERR_FILENO)
    }

    /// Writes results text to stdout.
    static func output(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    /// Writes `data` to stdout.
    static func output(_ data: Data) {
        write([UInt8](data), to: STDOUT_FILENO)
    }

    /// Writes to stdout or stderr, never failing: once a stream is closed (`| head` quit, the terminal or SSH
    /// session went away: EPIPE, EIO) nothing more is printed to it, and the run goes on measuring and
    /// writing its results folder. SIGPIPE is ignored (`ignoreBrokenPipes`), so a closed pipe is an error
    /// here, not the end of the process.
    static func write(_ text: String, to fd: Int32) {
        write(Array(text.utf8), to: fd)
    }

    private static func write(_ bytes: [UInt8], to fd: Int32) {
        // Writes happen with the lock held, so lines from several threads never interleave.
        closedStreams.withLock { closed in
            guard !closed.contains(fd) else { return }
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
                if written > 0 {
                    offset += written
                } else if written < 0 && (errno == EINTR || errno == EAGAIN) {
                    continue
                } else {
                    closed.insert(fd)
                    return
                }
            }
        }
    }

    /// Whether a write to `fd` failed (the reader went away).
    static func isClosed(_ fd: Int32) -> Bool {
        closedStreams.withLock { $0.contains(fd) }
    }

    /// Makes a write to a closed pipe an error instead of a fatal SIGPIPE (`launchbench run … | head`).
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// The descriptors a write failed on.
    private static let closedStreams = Locked<Set<Int32>>([])
}
