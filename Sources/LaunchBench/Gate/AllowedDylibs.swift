import Foundation

/// The dylib guard's allow list: which images from inside the app bundle may load at launch.
///
/// File format (`--allowed-dylibs FILE`): one entry per line, an image name or a glob
/// (`*`, `?`, `[...]`); `#` starts a comment (whole line or after the entry); blank lines and
/// surrounding spaces are ignored. An entry allows an image when it matches any of the image's
/// names: its path inside the bundle (`Frameworks/Foo.framework/Foo`), the bundle item it lives in
/// (`Foo.framework`, `libBar.dylib`) or its file name (`Foo`). So `Foo.framework`,
/// `Frameworks/Foo.framework/Foo`, `libBar.dylib` and `Frameworks/*` are all valid entries.
package struct AllowedDylibs: Sendable, Hashable {
    /// One line of the list.
    package struct Entry: Sendable, Hashable {
        /// The pattern the line holds.
        package var glob: Glob
        /// 1-based line in the file.
        package var line: Int
    }

    /// The list's patterns, in file order.
    package var entries: [Entry]

    /// A list of these entries.
    package init(entries: [Entry]) { self.entries = entries }

    /// Parses the file's text.
    package init(parsing text: String) {
        var entries: [Entry] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(rawLine)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let entry = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if !entry.isEmpty { entries.append(Entry(glob: Glob(entry), line: index + 1)) }
        }
        self.entries = entries
    }

    /// Reads an allow list file.
    /// - Throws: `LaunchBenchError.fileNotFound` when the file is missing, `.unreadableResults` when it is not UTF-8 text.
    package static func read(from url: URL) throws -> AllowedDylibs {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw LaunchBenchError.fileNotFound(
                path: url.path,
                what: "Allowed-dylibs file (write one with `launchbench run APP --write-allowed-dylibs FILE`)")
        }
        guard let data = FileManager.default.contents(atPath: url.path), let text = String(data: data, encoding: .utf8)
        else {
            throw LaunchBenchError.unreadableResults(
                path: url.path, reason: "the allowed-dylibs file is not UTF-8 text")
        }
        return AllowedDylibs(parsing: text)
    }

    /// Whether an image (a path inside the bundle, or a `Frameworks/` entry name) is allowed.
    package func allows(_ image: String) -> Bool {
        let names = Self.names(of: image)
        return entries.contains { entry in names.contains { entry.glob.matches($0) } }
    }

    /// The names an entry may use for an image: the path inside the bundle, the bundle item
    /// (`Foo.framework`, `libBar.dylib`), the file name.
    static func names(of image: String) -> [String] {
        var names = [image]
        let parts = image.split(separator: "/").map(String.init)
        if let item = parts.first(where: { $0.hasSuffix(".framework") || $0.hasSuffix(".dylib") }) {
            names.append(item)
        }
        if let last = parts.last { names.append(last) }
        return names
    }

    /// The bundle item an image belongs to (`Frameworks/Foo.framework/Foo` → `Foo.framework`), the
    /// name `--write-allowed-dylibs` records.
    package static func itemName(of image: String) -> String {
        let parts = image.split(separator: "/").map(String.init)
        return parts.first(where: { $0.hasSuffix(".framework") || $0.hasSuffix(".dylib") }) ?? image
    }

    /// The text of an allow list holding exactly `images` (their bundle items, sorted, once each).
    package static func render(images: [String], comment: String) -> String {
        let items = Set(images.map(itemName)).sorted()
        var text = comment.split(separator: "\n").map { "# \($0)\n" }.joined()
        text +=
            "# One image name or glob per line; `#` starts a comment. Checked by `launchbench run --allowed-dylibs`.\n"
        for item in items { text += item + "\n" }
        return text
    }
}
