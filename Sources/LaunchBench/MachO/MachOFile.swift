import Foundation

/// What launchbench needs of an arm64 Mach-O binary (an app's executable, framework or dylib, or a dSYM's
/// DWARF companion) to name the functions dyld's kdebug trace points at: the `__TEXT` address, the UUID,
/// the function symbols, the function starts and the static initializers. Nothing else is read.
///
/// The layout is `<mach-o/loader.h>`'s, `<mach-o/nlist.h>`'s and `<mach-o/fat.h>`'s. Every count, offset and
/// size is checked against the file before it is used: a truncated, foreign or inconsistent file is refused
/// with `LaunchBenchError.badMachO` naming the field, never a trap.
package struct MachOFile: Sendable, Hashable {
    /// One defined symbol in an instruction section.
    package struct Symbol: Sendable, Hashable {
        /// The symbol as the symbol table spells it, without the C underscore (`networking_warm_cache`,
        /// `$s9SampleKit5ThemeO9loadFontsyyFZ`).
        package var name: String
        /// Its offset from the image's load address (`n_value` − `__TEXT` vmaddr).
        package var offset: UInt64
    }

    /// Whether the slice read is arm64e (its pointers to code are signed).
    package var isArm64e: Bool
    /// `LC_UUID`, when the file has one.
    package var uuid: UUID?
    /// `__TEXT`'s vmaddr: where the image's mach header lies before the slide (0x1_0000_0000 for an
    /// executable, 0 for a dylib).
    package var textAddress: UInt64
    /// Function symbols, by offset (then name).
    package var symbols: [Symbol]
    /// `LC_FUNCTION_STARTS` as offsets from the load address, ascending; empty when the file has none.
    package var functionStarts: [UInt64]
    /// The static initializers dyld runs, as offsets from the load address, in the order it runs them
    /// (`__mod_init_func` pointers without chained fixups, or `__init_offsets`); nil when their section is
    /// written with chained fixups, which this reader does not decode.
    package var initializerOffsets: [UInt64]?

    static let cpuTypeARM64: UInt32 = 0x0100_000C
    static let subtypeARM64E: UInt32 = 2

    /// Reads the arm64 slice of a thin or fat Mach-O file.
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - path: the file's path, for the error.
    /// - Throws: `LaunchBenchError.badMachO` naming what is wrong.
    package static func read(_ data: Data, path: String) throws(LaunchBenchError) -> MachOFile {
        do {
            let bytes = MachOBytes(data)
            let (start, size) = try slice(of: bytes)
            var parser = MachOParser(bytes: MachOBytes(try bytes.bytes(at: start, count: size, "the arm64 slice")))
            return try parser.parse()
        } catch {
            throw .badMachO(path: path, reason: error.reason)
        }
    }

    /// Reads the file at `url` (at most 512 MiB: an app's binary, not a whole disk image).
    /// - Throws: `LaunchBenchError.fileNotFound`, or `.badMachO`.
    package static func read(contentsOf url: URL) throws(LaunchBenchError) -> MachOFile {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        guard let size = attributes?[.size] as? Int else { throw .fileNotFound(path: url.path, what: "Mach-O binary") }
        guard size <= 512 << 20 else {
            throw .badMachO(path: url.path, reason: "it is \(size) bytes, more than the 512 MiB an app binary may be")
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .fileNotFound(path: url.path, what: "Mach-O binary")
        }
        return try read(data, path: url.path)
    }

    /// The byte range of the arm64 slice: the whole file when thin, else the fat header's arm64 entry (arm64e
    /// when there is no plain arm64).
    private static func slice(of bytes: MachOBytes) throws(MachOBytes.OutOfBounds) -> (UInt64, UInt64) {
        let magic = try bytes.bigUInt32(at: 0, "the magic number")
        guard magic == 0xCAFE_BABE || magic == 0xCAFE_BABF else { return (0, UInt64(bytes.count)) }
        let wide = magic == 0xCAFE_BABF
        let count = try bytes.bigUInt32(at: 4, "the fat header's slice count")
        let entrySize: UInt64 = wide ? 32 : 20
        guard bytes.contains(offset: 8, length: UInt64(count) * entrySize) else {
            throw .init(reason: "the fat header lists \(count) slices, more than the file holds")
        }
        var found: [(subtype: UInt32, offset: UInt64, size: UInt64)] = []
        for index in 0..<UInt64(count) {
            let entry = 8 + index * entrySize
            guard try bytes.bigUInt32(at: entry, "a fat slice's CPU type") == cpuTypeARM64 else { continue }
            let subtype = try bytes.bigUInt32(at: entry + 4, "a fat slice's CPU subtype") & 0x00FF_FFFF
            let offset =
                wide
                ? try bytes.bigUInt64(at: entry + 8, "a fat slice's offset")
                : UInt64(try bytes.bigUInt32(at: entry + 8, "a fat slice's offset"))
            let size =
                wide
                ? try bytes.bigUInt64(at: entry + 16, "a fat slice's size")
                : UInt64(try bytes.bigUInt32(at: entry + 12, "a fat slice's size"))
            found.append((subtype, offset, size))
        }
        guard let chosen = found.first(where: { $0.subtype != subtypeARM64E }) ?? found.first else {
            throw .init(reason: "the fat file has no arm64 slice")
        }
        return (chosen.offset, chosen.size)
    }
}

/// Walks one thin arm64 Mach-O's load commands.
private struct MachOParser {
    let bytes: MachOBytes
    private var sections:
        [(segment: String, name: String, address: UInt64, size: UInt64, offset: UInt32, flags: UInt32)] =
            []
    private var textAddress: UInt64?
    private var symtab: (symbols: UInt64, count: UInt64, strings: UInt64, stringsSize: UInt64)?
    private var functionStarts: (offset: UInt64, size: UInt64)?
    private var uuid: UUID?
    private var chainedFixups = false

    init(bytes: MachOBytes) { self.bytes = bytes }

    /// `LC_SEGMENT_64`, `LC_SYMTAB`, `LC_UUID`, `LC_FUNCTION_STARTS`, `LC_DYLD_CHAINED_FIXUPS`.
    private enum Command: UInt32 {
        case segment64 = 0x19
        case symtab = 0x2
        case uuid = 0x1B
        case functionStarts = 0x26
        case chainedFixups = 0x8000_0034
    }

    mutating func parse() throws(MachOBytes.OutOfBounds) -> MachOFile {
        let magic = try bytes.uint32(at: 0, "the magic number")
        guard magic == 0xFEED_FACF else {
            let what = magic == 0xFEED_FACE ? "a 32-bit Mach-O" : String(format: "magic 0x%08x", magic)
            throw .init(reason: "it is not a 64-bit little-endian Mach-O file (\(what))")
        }
        let cpu = try bytes.uint32(at: 4, "the CPU type")
        guard cpu == MachOFile.cpuTypeARM64 else {
            throw .init(reason: String(format: "its CPU type is 0x%08x, not arm64", cpu))
        }
        let subtype = try bytes.uint32(at: 8, "the CPU subtype") & 0x00FF_FFFF
        let commandCount = try bytes.uint32(at: 16, "the load command count")
        let commandsSize = UInt64(try bytes.uint32(at: 20, "the load commands' size"))
        guard bytes.contains(offset: 32, length: commandsSize) else {
            throw .init(reason: "its load commands (\(commandsSize) bytes) run past the end of the file")
        }
        guard UInt64(commandCount) * 8 <= commandsSize else {
            throw .init(reason: "\(commandCount) load commands cannot fit in \(commandsSize) bytes")
        }
        var offset: UInt64 = 32
        let end = 32 + commandsSize
        for index in 0..<commandCount {
            let command = try bytes.uint32(at: offset, "load command \(index)")
            let size = UInt64(try bytes.uint32(at: offset + 4, "load command \(index)'s size"))
            guard size >= 8, size % 8 == 0, offset + size <= end else {
                throw .init(reason: "load command \(index) has size \(size), which does not fit the load commands")
            }
            try read(Command(rawValue: command), at: offset, size: size, index: index)
            offset += size
        }
        guard let textAddress else { throw .init(reason: "it has no __TEXT segment") }
        return MachOFile(
            isArm64e: subtype == MachOFile.subtypeARM64E, uuid: uuid, textAddress: textAddress,
            symbols: try symbols(textAddress: textAddress), functionStarts: try starts(textAddress: textAddress),
            initializerOffsets: try initializers(textAddress: textAddress))
    }

    private mutating func read(
        _ command: Command?, at offset: UInt64, size: UInt64, index: UInt32
    ) throws(MachOBytes.OutOfBounds) {
        switch command {
        case .segment64:
            guard size >= 72 else { throw .init(reason: "LC_SEGMENT_64 \(index) is \(size) bytes, under 72") }
            let segment = try bytes.name(at: offset + 8, size: 16, "a segment name")
            let address = try bytes.uint64(at: offset + 24, "\(segment)'s vmaddr")
            if segment == "__TEXT" { textAddress = address }
            let count = UInt64(try bytes.uint32(at: offset + 64, "\(segment)'s section count"))
            guard 72 + count * 80 <= size else {
                throw .init(reason: "segment \(segment) lists \(count) sections, more than its command holds")
            }
            for section in 0..<count {
                let at = offset + 72 + section * 80
                sections.append(
                    (
                        segment, try bytes.name(at: at, size: 16, "a section name"),
                        try bytes.uint64(at: at + 32, "a section's address"),
                        try bytes.uint64(at: at + 40, "a section's size"),
                        try bytes.uint32(at: at + 48, "a section's file offset"),
                        try bytes.uint32(at: at + 64, "a section's flags")
                    ))
            }
        case .symtab:
            guard size >= 24 else { throw .init(reason: "LC_SYMTAB is \(size) bytes, under 24") }
            symtab = (
                UInt64(try bytes.uint32(at: offset + 8, "the symbol table's offset")),
                UInt64(try bytes.uint32(at: offset + 12, "the symbol count")),
                UInt64(try bytes.uint32(at: offset + 16, "the string table's offset")),
                UInt64(try bytes.uint32(at: offset + 20, "the string table's size"))
            )
        case .uuid:
            guard size >= 24 else { throw .init(reason: "LC_UUID is \(size) bytes, under 24") }
            let raw = Array(try bytes.bytes(at: offset + 8, count: 16, "the UUID"))
            uuid = UUID(
                uuid: (
                    raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9], raw[10], raw[11],
                    raw[12], raw[13], raw[14], raw[15]
                ))
        case .functionStarts:
            guard size >= 16 else { throw .init(reason: "LC_FUNCTION_STARTS is \(size) bytes, under 16") }
            functionStarts = (
                UInt64(try bytes.uint32(at: offset + 8, "the function starts' offset")),
                UInt64(try bytes.uint32(at: offset + 12, "the function starts' size"))
            )
        case .chainedFixups:
            chainedFixups = true
        case nil:
            break
        }
    }

    /// Defined, non-debugging symbols (`N_SECT`, no `N_STAB` bits) inside a section that holds instructions.
    private func symbols(textAddress: UInt64) throws(MachOBytes.OutOfBounds) -> [MachOFile.Symbol] {
        guard let symtab else { return [] }
        guard bytes.contains(offset: symtab.symbols, length: symtab.count * 16) else {
            throw .init(reason: "the symbol table (\(symtab.count) entries at \(symtab.symbols)) runs past the end")
        }
        guard bytes.contains(offset: symtab.strings, length: symtab.stringsSize) else {
            throw .init(reason: "the string table (\(symtab.stringsSize) bytes at \(symtab.strings)) runs past the end")
        }
        let strings = try bytes.bytes(at: symtab.strings, count: symtab.stringsSize, "the string table")
        let code: UInt32 = 0x8000_0000 | 0x400  // S_ATTR_PURE_INSTRUCTIONS | S_ATTR_SOME_INSTRUCTIONS
        var found: [MachOFile.Symbol] = []
        for index in 0..<symtab.count {
            let entry = symtab.symbols + index * 16
            let type = try bytes.uint8(at: entry + 4, "a symbol's type")
            let section = Int(try bytes.uint8(at: entry + 5, "a symbol's section"))
            guard type & 0xE0 == 0, type & 0x0E == 0x0E, section >= 1, section <= sections.count,
                sections[section - 1].flags & code != 0
            else { continue }
            let value = try bytes.uint64(at: entry + 8, "a symbol's value")
            let nameOffset = UInt64(try bytes.uint32(at: entry, "a symbol's name offset"))
            // The mach header's own symbol (`__mh_execute_header`) claims `__text` but lies before it.
            let owner = sections[section - 1]
            guard value >= textAddress, value >= owner.address, value - owner.address < owner.size,
                nameOffset < symtab.stringsSize
            else { continue }
            let start = strings.startIndex + Int(nameOffset)
            let name = strings[start...].prefix(4096).prefix { $0 != 0 }
            guard !name.isEmpty else { continue }
            var text = String(decoding: name, as: UTF8.self)
            if text.hasPrefix("_") { text.removeFirst() }
            found.append(.init(name: text, offset: value - textAddress))
        }
        return found.sorted { ($0.offset, $0.name) < ($1.offset, $1.name) }
    }

    /// `LC_FUNCTION_STARTS`: ULEB128 deltas from `__TEXT`'s start, ended by a 0.
    private func starts(textAddress: UInt64) throws(MachOBytes.OutOfBounds) -> [UInt64] {
        guard let functionStarts else { return [] }
        let data = try bytes.bytes(at: functionStarts.offset, count: functionStarts.size, "the function starts")
        var starts: [UInt64] = []
        var offset: UInt64 = 0
        var index = data.startIndex
        while index < data.endIndex {
            var delta: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard index < data.endIndex else { throw .init(reason: "the function starts end inside a number") }
                let byte = data[index]
                index += 1
                guard shift < 64 else { throw .init(reason: "a function start's delta overflows 64 bits") }
                delta |= UInt64(byte & 0x7F) << shift
                shift += 7
                if byte & 0x80 == 0 { break }
            }
            if delta == 0 { break }
            let (next, overflow) = offset.addingReportingOverflow(delta)
            guard !overflow else { throw .init(reason: "the function starts overflow 64 bits") }
            offset = next
            starts.append(offset)
        }
        return starts
    }

    /// The initializers dyld's `forEachInitializer` walks: `S_MOD_INIT_FUNC_POINTERS` (0x9) sections hold
    /// pointers, `S_INIT_FUNC_OFFSETS` (0x16) sections 32-bit offsets from the load address.
    private func initializers(textAddress: UInt64) throws(MachOBytes.OutOfBounds) -> [UInt64]? {
        var offsets: [UInt64] = []
        for section in sections {
            let type = section.flags & 0xFF
            guard type == 0x9 || type == 0x16 else { continue }
            let width: UInt64 = type == 0x9 ? 8 : 4
            if type == 0x9 && chainedFixups { return nil }
            guard section.size % width == 0 else {
                throw .init(reason: "\(section.name) is \(section.size) bytes, not a whole number of entries")
            }
            let start = UInt64(section.offset)
            guard bytes.contains(offset: start, length: section.size) else {
                throw .init(reason: "\(section.name) (\(section.size) bytes at \(start)) runs past the end")
            }
            for entry in stride(from: start, to: start + section.size, by: Int(width)) {
                if width == 4 {
                    offsets.append(UInt64(try bytes.uint32(at: entry, "an initializer offset")))
                } else {
                    let pointer = try bytes.uint64(at: entry, "an initializer pointer")
                    guard pointer >= textAddress else {
                        throw .init(reason: "initializer pointer 0x\(String(pointer, radix: 16)) lies below __TEXT")
                    }
                    offsets.append(pointer - textAddress)
                }
            }
        }
        return offsets
    }
}
