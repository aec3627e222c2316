/// What a terminal the output goes to can do, from the facts a process can see.
package enum TerminalCapabilities {
    /// Whether progress may redraw lines in place (cursor movements): only on a real terminal that understands
    /// them. `TERM=dumb` (Emacs shells, some CI consoles) does not, and `CI=true` means a log is being kept even
    /// when a pseudo-terminal is attached (GitHub Actions with `script`, GitLab's shell executor): both get the
    /// plain lines a file gets, one per launch, which read well afterwards.
    /// - Parameters:
    ///   - isTerminal: whether the stream is a terminal (`isatty`).
    ///   - environment: the process environment.
    package static func redrawsInPlace(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal else { return false }
        if environment["TERM"] == "dumb" { return false }
        if let ci = environment["CI"]?.lowercased(), ["true", "1", "yes"].contains(ci) { return false }
        return true
    }
}
