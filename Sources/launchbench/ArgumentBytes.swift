#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The command line as the kernel handed it over. Swift's `CommandLine.arguments` replaces bytes that are not
/// UTF-8 with U+FFFD, so a path holding such bytes (a Latin-1 file name) would be looked up, or written, under
/// another name: an app "not found" that exists, an `--output` folder created with a different name. Such an
/// argument is refused up front, naming it and the fix.
enum ArgumentBytes {
    /// Every argument after the program's name, as raw bytes.
    static var current: [[UInt8]] {
        (0..<Int(CommandLine.argc)).dropFirst().map { index in  // argc may be 0 (an empty argv)
            guard let argument = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeBufferPointer(start: argument, count: strlen(argument))).map { UInt8(bitPattern: $0) }
        }
    }

    /// The message for the first argument that is not valid UTF-8, `nil` when all are.
    static func problem(in arguments: [[UInt8]]) -> String? {
        for (index, bytes) in arguments.enumerated() {
            let text = String(decoding: bytes, as: UTF8.self)
            guard Array(text.utf8) != bytes else { continue }
            return "Argument \(index + 1) (\(text), with \u{FFFD} for each byte that is not UTF-8) is not valid "
                + "UTF-8, so launchbench cannot use it unchanged: a path would be read or written under another "
                + "name. Rename the file or folder to a UTF-8 name (e.g. convmv -f latin1 -t utf8 --notest PATH), or "
                + "pass a symlink to it whose name is UTF-8."
        }
        return nil
    }
}
