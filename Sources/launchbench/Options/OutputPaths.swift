import ArgumentParser
import Foundation

/// The files and folders a command will write, checked while its options are read, before anything is measured:
/// a destination that can only fail when the results are written (after a lab's 20 minutes) is refused at
/// once, naming the option (exit 64).
enum OutputPaths {
    /// A file the command writes or appends to (`--junit`, `--markdown`, `--output FILE`, …): not empty, not a
    /// folder, in a folder that exists and is writable, and itself writable when it exists.
    static func checkFile(_ path: String?, option: String, example: String) throws {
        guard let path else { return }
        try checkNotEmpty(path, option: option, example: example)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue {
                let inside = (path as NSString).appendingPathComponent(example)
                throw ValidationError("\(option) \(path) is a folder. Name a file, e.g. \(option) \(inside).")
            }
            guard FileManager.default.isWritableFile(atPath: path) else {
                throw ValidationError(
                    "\(option) \(path) is not writable. Make it writable (chmod u+w \(path)) or name another file.")
            }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw ValidationError(
                "\(option) \(path): the folder \(folder) does not exist. Create it (mkdir -p \(folder)) or name a "
                    + "file in an existing folder.")
        }
        try checkWritableFolder(folder, isFolder: isFolder.boolValue, option: option, path: path)
    }

    /// A folder the command creates (with its missing parents) or fills (`--output DIR`): not empty, not a file,
    /// and its nearest existing folder writable.
    static func checkFolder(_ path: String?, option: String, example: String) throws {
        guard let path else { return }
        try checkNotEmpty(path, option: option, example: example)
        var existing = path
        var isFolder: ObjCBool = false
        while !FileManager.default.fileExists(atPath: existing, isDirectory: &isFolder) {
            let parent = (existing as NSString).deletingLastPathComponent
            let next = parent.isEmpty ? "." : parent
            guard next != existing else { break }  // "." or "/" gone: the writable check below says so
            existing = next
        }
        if existing == path, !isFolder.boolValue {
            throw ValidationError(
                "\(option) \(path) is a file, not a folder. Name a folder, e.g. \(option) \(example).")
        }
        try checkWritableFolder(existing, isFolder: isFolder.boolValue, option: option, path: path)
    }

    /// An empty value is what an unset variable gives (`--markdown "$GITHUB_STEP_SUMMARY"` outside GitHub Actions).
    private static func checkNotEmpty(_ path: String, option: String, example: String) throws {
        guard path.isEmpty else { return }
        throw ValidationError(
            "\(option) is empty: the variable it was given (e.g. $GITHUB_STEP_SUMMARY) is unset. Name a path, e.g. "
                + "\(option) \(example), or drop \(option).")
    }

    private static func checkWritableFolder(_ folder: String, isFolder: Bool, option: String, path: String) throws {
        guard isFolder else {
            throw ValidationError("\(option) \(path): \(folder) is a file, not a folder. Name a path in a folder.")
        }
        guard FileManager.default.isWritableFile(atPath: folder) else {
            throw ValidationError(
                "\(option) \(path): the folder \(folder) is not writable. Name a path in a folder you can write to.")
        }
    }
}
