internal import CIMobileDevice

/// Owns an `afc_client_t` (file access to the device's Media folder) and frees it in `deinit`.
/// Not Sendable: lives on the owning `DeviceSession` actor.
final class AFCClient {
    static let service = "com.apple.afc"

    let udid: String
    private let handle: afc_client_t

    init(device: DeviceHandle, service: ServiceDescriptor) throws {
        udid = device.udid
        handle = try makeClient(
            "afc_client_new", udid: device.udid, success: AFC_E_SUCCESS, free: afc_client_free,
            new: { client in
                device.withHandle { device in service.withHandle { afc_client_new(device, $0, &client) } }
            },
            check: { try check($0, operation: "afc_client_new", udid: device.udid, path: "/") })
    }

    deinit { afc_client_free(handle) }

    /// Whether `path` exists on the device.
    func exists(_ path: String) throws -> Bool {
        var info: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let code = afc_get_file_info(handle, path, &info)
        if let info { afc_dictionary_free(info) }
        if code == AFC_E_OBJECT_NOT_FOUND { return false }
        try check(code, operation: "afc_get_file_info", udid: udid, path: path)
        return true
    }

    func makeDirectory(_ path: String) throws {
        try check(afc_make_directory(handle, path), operation: "afc_make_directory", udid: udid, path: path)
    }

    /// Removes a file or a whole folder; absent is fine.
    func removeRecursively(_ path: String) throws {
        let code = afc_remove_path_and_contents(handle, path)
        if code == AFC_E_OBJECT_NOT_FOUND { return }
        try check(code, operation: "afc_remove_path_and_contents", udid: udid, path: path)
    }

    func makeSymbolicLink(at path: String, to target: String) throws {
        try check(
            afc_make_link(handle, AFC_SYMLINK, target, path), operation: "afc_make_link", udid: udid, path: path)
    }

    /// Writes a file from `chunks` (each at most `maximumWrite` bytes), truncating what was there.
    func writeFile(_ path: String, chunks: () throws -> [UInt8]?) throws {
        var file: UInt64 = 0
        try check(
            afc_file_open(handle, path, AFC_FOPEN_WRONLY, &file), operation: "afc_file_open", udid: udid, path: path)
        var closed = false
        defer { if !closed { afc_file_close(handle, file) } }
        while let chunk = try chunks(), !chunk.isEmpty {
            var offset = 0
            while offset < chunk.count {
                var written: UInt32 = 0
                let code = chunk.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { bytes in
                        afc_file_write(
                            handle, file, bytes.baseAddress! + offset, UInt32(bytes.count - offset), &written)
                    }
                }
                try check(code, operation: "afc_file_write", udid: udid, path: path)
                guard written > 0 else {
                    throw DeviceError.uploadFailed(
                        path: path, udid: udid,
                        call: .afc(AFC_E_WRITE_ERROR.rawValue, operation: "afc_file_write wrote nothing"))
                }
                offset += Int(written)
            }
        }
        closed = true
        try check(afc_file_close(handle, file), operation: "afc_file_close", udid: udid, path: path)
    }

    /// ideviceinstaller's write size: large enough to be fast, small enough for any device.
    static let maximumWrite = 1 << 20
}
