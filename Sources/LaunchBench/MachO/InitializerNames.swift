import Foundation

/// Turns Swift's mangled symbols into readable names (`$s9SampleKit5ThemeO9loadFontsyyFZ` →
/// `static SampleKit.Theme.loadFonts() -> ()`). The core spawns no process: the command line hands in the
/// toolchain's `swift-demangle` when it finds one.
package protocol SymbolDemangling: Sendable {
    /// Readable names by mangled name; a name it cannot demangle is left out.
    func demangle(_ names: [String]) -> [String: String]
}

/// Where a run names the static initializers kdebug times (`run --dsym`, the demangler).
package struct InitializerSymbolSources: Sendable {
    /// `--dsym PATH`: a `.dSYM` bundle, a folder of them, or a DWARF companion file; its binaries' symbols
    /// replace those of the bundle's binary with the same UUID.
    package var dsym: URL?
    /// `swift-demangle`, when found; without it Swift initializers keep their mangled names.
    package var demangler: (any SymbolDemangling)?

    /// Sources: none by default (the bundle's own symbol tables, names left mangled).
    package init(dsym: URL? = nil, demangler: (any SymbolDemangling)? = nil) {
        self.dsym = dsym
        self.demangler = demangler
    }
}

/// The static initializers of one app build by image and offset, named from the bundle's own Mach-O files
/// (symbol table, function starts for stripped ones) or a dSYM's, read once per run and device.
package struct InitializerNames: Sendable {
    /// The bundle's binaries by their path inside the `.app` (`Sample`, `Frameworks/SampleKit.framework/SampleKit`).
    package private(set) var binaries: [String: MachOFile] = [:]
    /// Readable names of the binaries' Swift symbols.
    private var demangled: [String: String] = [:]
    /// What could not be read, said once per run and device.
    package private(set) var notes: [String] = []

    /// Reads the executable and every binary of `Frameworks/` (`X.framework/X`, `*.dylib`) of `app`, then the
    /// dSYM's binaries. A binary that cannot be read is named in `notes`, and its initializers by offset.
    /// - Parameters:
    ///   - app: the build whose launches are named.
    ///   - sources: the dSYM and the demangler.
    package static func load(app: AppBundle, sources: InitializerSymbolSources) -> InitializerNames {
        var names = InitializerNames()
        let paths =
            [app.executable]
            + app.frameworks.map { entry in
                entry.hasSuffix(".framework")
                    ? "Frameworks/\(entry)/\(entry.dropLast(".framework".count))" : "Frameworks/\(entry)"
            }
        let contents: AppBundleContents
        do {
            contents = try AppBundleContents.read(app.url, files: paths)
        } catch {
            names.notes.append("Initializers are named by offset: \(app.url.path) could not be read (\(error.reason)).")
            return names
        }
        for path in paths {
            guard let data = contents.files[path] else { continue }
            do {
                names.binaries[path] = try MachOFile.read(data, path: app.bundleName + "/" + path)
            } catch {
                names.notes.append((error.errorDescription ?? "\(error)") + " Its initializers are named by offset.")
            }
        }
        if let dsym = sources.dsym { names.merge(dsym: dsym) }
        let swift = Set(names.binaries.values.flatMap { $0.symbols.map(\.name) }.filter(Self.isSwiftMangled))
        if !swift.isEmpty {
            if let demangler = sources.demangler {
                names.demangled = demangler.demangle(swift.sorted())
            }
        }
        return names
    }

    /// Whether `name` is a Swift symbol (`$s…`, `$S…`, `_T0…`).
    static func isSwiftMangled(_ name: String) -> Bool {
        name.hasPrefix("$s") || name.hasPrefix("$S") || name.hasPrefix("_T0") || name.hasPrefix("$e")
    }

    /// Whether kdebug named one of `sample`'s initializer functions by a Swift symbol that stayed mangled (a
    /// demangled name reads `static SampleKit.Theme.loadFonts() -> ()`).
    package static func keepsMangledName(_ sample: Sample) -> Bool {
        (sample.initializers ?? []).contains { image in
            (image.functions ?? []).contains { isSwiftMangled($0.function) }
        }
    }

    /// The dSYM's DWARF companions whose UUID matches a bundle binary replace its symbols (a stripped release
    /// build's dSYM has them all).
    private mutating func merge(dsym: URL) {
        var companions: [URL] = []
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dsym.path, isDirectory: &isDirectory) else {
            notes.append("No dSYM at \(dsym.path): initializers are named from the bundle's own symbols.")
            return
        }
        if isDirectory.boolValue {
            let walker = FileManager.default.enumerator(at: dsym, includingPropertiesForKeys: nil)
            while let url = walker?.nextObject() as? URL {
                if url.deletingLastPathComponent().lastPathComponent == "DWARF" { companions.append(url) }
                if companions.count >= 512 { break }
            }
        } else {
            companions = [dsym]
        }
        var matched = 0
        for url in companions {
            do {
                let file = try MachOFile.read(contentsOf: url)
                for (path, binary) in binaries where binary.uuid != nil && binary.uuid == file.uuid {
                    var merged = file
                    // The companion's addresses are the binary's; its function starts may be missing.
                    if merged.functionStarts.isEmpty { merged.functionStarts = binary.functionStarts }
                    merged.initializerOffsets = binary.initializerOffsets
                    binaries[path] = merged
                    matched += 1
                }
            } catch {
                notes.append(error.errorDescription ?? "\(error)")
            }
        }
        if matched == 0 {
            notes.append(
                "The dSYM at \(dsym.path) matches no binary of the app by UUID: initializers are named from the "
                    + "bundle's own symbols.")
        }
    }

    /// The name of the function at `offset` in the image at `imagePath` (its path on the device): the symbol
    /// the image's binary has there, demangled when it is Swift's; `0x…` (the offset) for an image outside
    /// the bundle or whose binary could not be read.
    package func function(imagePath: String, offset: UInt64) -> String {
        let inside = LoadedImage(path: imagePath).pathInsideAppBundle
        guard let inside, let binary = binaries[inside], let symbol = binary.function(atOffset: offset) else {
            return "0x" + String(offset, radix: 16)
        }
        // `name+0x8` when the offset is inside the function, not at its start.
        let split = symbol.range(of: "+0x", options: .backwards)
        let name = split.map { String(symbol[..<$0.lowerBound]) } ?? symbol
        guard let readable = demangled[name] else { return symbol }
        return split.map { readable + String(symbol[$0.lowerBound...]) } ?? readable
    }
}
