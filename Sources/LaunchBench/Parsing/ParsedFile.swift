/// The launches `launchbench parse` found in one file: a log (`ParsedLog`) or a kdebug capture
/// (`ParsedKdebugFile`).
package struct ParsedFile<Launch: Sendable>: Sendable {
    /// The file as the user named it (`-` for a log read from stdin).
    package var file: String
    /// Every launch found, in the order it appears in the file.
    package var launches: [Launch]

    /// The launches of `file`.
    package init(file: String, launches: [Launch]) {
        self.file = file
        self.launches = launches
    }
}

extension ParsedFile: Equatable where Launch: Equatable {}
extension ParsedFile: Hashable where Launch: Hashable {}
