import Foundation

/// The AFC file service over one folder (the device's media root, real `/private/var/mobile/Media`):
/// one request packet in, one reply packet out. Paths are confined to the root; file handles are
/// per connection.
final class AFCEngine {
    let root: URL
    private var handles: [UInt64: FileHandle] = [:]
    private var nextHandle: UInt64 = 1

    init(root: URL) {
        self.root = root
    }

    deinit {
        for handle in handles.values { try? handle.close() }
    }

    /// The reply to `request`, echoing its packet number.
    func reply(to request: AFCPacket) -> AFCPacket {
        let number = request.packetNumber
        guard let operation = AFCOperation(rawValue: request.operation) else {
            return .status(.operationNotSupported, number: number)
        }
        let fields = request.headerData
        switch operation {
        case .getFileInfo, .getDeviceInfo, .readDir:
            return describe(operation, fields, number: number)
        case .makeDir, .removePath, .removePathAndContents, .rename, .makeLink:
            return .status(change(operation, fields), number: number)
        case .fileOpen:
            return open(fields, number: number)
        case .fileWrite, .fileRead, .fileClose:
            return access(operation, request)
        case .status, .data, .fileOpenResult:
            return .status(.operationNotSupported, number: number)
        }
    }

    // MARK: - Operations

    /// File info, device info or a directory listing: a DATA reply, or the status that says why not.
    private func describe(_ operation: AFCOperation, _ fields: [UInt8], number: UInt64) -> AFCPacket {
        if operation == .getDeviceInfo {
            return .data(
                Self.keyValues([
                    ("Model", "iPhone"), ("FSTotalBytes", "63978983424"), ("FSFreeBytes", "31989491712"),
                    ("FSBlockSize", "4096"),
                ]), number: number)
        }
        guard let url = path(fields, at: 0) else { return .status(.permissionDenied, number: number) }
        if operation == .getFileInfo {
            guard let info = fileInfo(url) else { return .status(.objectNotFound, number: number) }
            return .data(Self.keyValues(info), number: number)
        }
        guard isDirectory(url) else {
            return .status(exists(url) ? .invalidArgument : .objectNotFound, number: number)
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
        return .data(([".", ".."] + names).flatMap { Array($0.utf8) + [0] }, number: number)
    }

    /// Makes, removes, renames or links a path.
    private func change(_ operation: AFCOperation, _ fields: [UInt8]) -> AFCStatus {
        if operation == .makeLink { return makeLink(fields) }
        if operation == .rename { return rename(fields) }
        guard let url = path(fields, at: 0) else { return .permissionDenied }
        if operation == .makeDir {
            let made: ()? = try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return made != nil ? .success : .objectExists
        }
        guard url.standardizedFileURL != root.standardizedFileURL else { return .permissionDenied }
        guard exists(url) else { return .objectNotFound }
        if operation == .removePath, isDirectory(url),
            !((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).isEmpty
        {
            return .unknownError  // the client maps 1 to "directory not empty"
        }
        return (try? FileManager.default.removeItem(at: url)) != nil ? .success : .permissionDenied
    }

    private func rename(_ fields: [UInt8]) -> AFCStatus {
        let strings = Self.strings(fields)
        guard strings.count >= 2, let from = resolve(strings[0]), let to = resolve(strings[1]) else {
            return .invalidArgument
        }
        guard exists(from) else { return .objectNotFound }
        if exists(to) { try? FileManager.default.removeItem(at: to) }
        return (try? FileManager.default.moveItem(at: from, to: to)) != nil ? .success : .permissionDenied
    }

    /// Writes to, reads from or closes an open file.
    private func access(_ operation: AFCOperation, _ request: AFCPacket) -> AFCPacket {
        let fields = request.headerData
        let number = request.packetNumber
        if operation == .fileClose {
            guard fields.count >= 8, let handle = handles.removeValue(forKey: Self.uint64(fields, at: 0)) else {
                return .status(.invalidArgument, number: number)
            }
            try? handle.close()
            return .status(.success, number: number)
        }
        guard let handle = handle(fields) else { return .status(.invalidArgument, number: number) }
        if operation == .fileWrite {
            let written: ()? = try? handle.write(contentsOf: Data(request.payload))
            return .status(written != nil ? .success : .writeError, number: number)
        }
        guard fields.count >= 16 else { return .status(.invalidArgument, number: number) }
        let length = Int(min(Self.uint64(fields, at: 8), 16 * 1024 * 1024))
        let bytes = (try? handle.read(upToCount: length)) ?? nil
        return .data(Array(bytes ?? Data()), number: number)
    }

    private func open(_ fields: [UInt8], number: UInt64) -> AFCPacket {
        guard fields.count > 8, let url = path(Array(fields[8...]), at: 0) else {
            return .status(.invalidArgument, number: number)
        }
        let mode = Self.uint64(fields, at: 0)
        let fm = FileManager.default
        if isDirectory(url) { return .status(.objectIsDirectory, number: number) }
        let handle: FileHandle?
        switch mode {
        case 1:  // r
            handle = FileHandle(forReadingAtPath: url.path)
        case 2:  // r+
            handle = FileHandle(forUpdatingAtPath: url.path)
        case 3, 4:  // w, w+: create or truncate
            guard fm.createFile(atPath: url.path, contents: nil) else {
                return .status(.objectNotFound, number: number)
            }
            handle = FileHandle(forUpdatingAtPath: url.path)
        case 5, 6:  // a, a+
            if !fm.fileExists(atPath: url.path) { _ = fm.createFile(atPath: url.path, contents: nil) }
            handle = FileHandle(forUpdatingAtPath: url.path)
            _ = try? handle?.seekToEnd()
        default:
            return .status(.invalidArgument, number: number)
        }
        guard let handle else { return .status(.objectNotFound, number: number) }
        let id = nextHandle
        nextHandle += 1
        handles[id] = handle
        var bytes: [UInt8] = []
        withUnsafeBytes(of: id.littleEndian) { bytes.append(contentsOf: $0) }
        return AFCPacket(
            packetNumber: number, operation: AFCOperation.fileOpenResult.rawValue, headerData: bytes, payload: [])
    }

    private func makeLink(_ fields: [UInt8]) -> AFCStatus {
        guard fields.count > 8 else { return .invalidArgument }
        let type = Self.uint64(fields, at: 0)
        let strings = Self.strings(Array(fields[8...]))
        guard strings.count >= 2, let link = resolve(strings[1]) else { return .invalidArgument }
        // ideviceinstaller 1.1.1 sends its local path as the link name; any path inside the root is accepted.
        do {
            try FileManager.default.createDirectory(
                at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
            if type == 1 {
                guard let target = resolve(strings[0]) else { return .invalidArgument }
                try FileManager.default.linkItem(at: target, to: link)
            } else {
                try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: strings[0])
            }
            return .success
        } catch {
            return exists(link) ? .objectExists : .objectNotFound
        }
    }

    private func fileInfo(_ url: URL) -> [(String, String)]? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        let type = attributes[.type] as? FileAttributeType
        let ifmt = type == .typeDirectory ? "S_IFDIR" : type == .typeSymbolicLink ? "S_IFLNK" : "S_IFREG"
        let modified = (attributes[.modificationDate] as? Date) ?? Date()
        // Clamped to the year 2554, where UInt64 nanoseconds end (a file dated later would trap).
        let nanoseconds = String(UInt64(min(max(0, modified.timeIntervalSince1970), 1.8e10) * 1e9))
        var info: [(String, String)] = [
            ("st_size", String(size)), ("st_blocks", String((size + 511) / 512)),
            ("st_nlink", String((attributes[.referenceCount] as? NSNumber)?.intValue ?? 1)), ("st_ifmt", ifmt),
            ("st_mtime", nanoseconds), ("st_birthtime", nanoseconds),
        ]
        if type == .typeSymbolicLink, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)
        {
            info.append(("LinkTarget", target))
        }
        return info
    }

    // MARK: - Paths and fields

    /// The NUL-terminated path at `offset` of `fields`, resolved inside the root.
    private func path(_ fields: [UInt8], at offset: Int) -> URL? {
        guard let first = Self.strings(Array(fields[min(offset, fields.count)...])).first else { return nil }
        return resolve(first)
    }

    /// `path` (absolute or relative to the root) inside the root; `nil` when it would escape it.
    func resolve(_ path: String) -> URL? {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..":
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            default: parts.append(part)
            }
        }
        return parts.reduce(root) { $0.appendingPathComponent(String($1)) }
    }

    private func handle(_ fields: [UInt8]) -> FileHandle? {
        guard fields.count >= 8 else { return nil }
        return handles[Self.uint64(fields, at: 0)]
    }

    private func exists(_ url: URL) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: url.path)) != nil
    }

    private func isDirectory(_ url: URL) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
    }

    static func uint64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<8 where offset + i < bytes.count { value |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        return value
    }

    /// NUL-separated strings (the last may lack its NUL).
    static func strings(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast(bytes.last == 0 ? 1 : 0)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    static func keyValues(_ pairs: [(String, String)]) -> [UInt8] {
        pairs.flatMap { Array($0.0.utf8) + [0] + Array($0.1.utf8) + [0] }
    }
}

extension AFCPacket {
    /// A STATUS reply with its 8-byte code (a bare 40-byte STATUS is an error to the client).
    static func status(_ code: AFCStatus, number: UInt64) -> AFCPacket {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: code.rawValue.littleEndian) { bytes.append(contentsOf: $0) }
        return AFCPacket(packetNumber: number, operation: AFCOperation.status.rawValue, headerData: bytes, payload: [])
    }

    /// A DATA reply carrying `bytes`.
    static func data(_ bytes: [UInt8], number: UInt64) -> AFCPacket {
        AFCPacket(packetNumber: number, operation: AFCOperation.data.rawValue, headerData: [], payload: bytes)
    }
}
