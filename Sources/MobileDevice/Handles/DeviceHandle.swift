internal import CIMobileDevice
import LaunchBench

/// Owns an `idevice_t` (one attached device as usbmuxd knows it) and frees it in `deinit`.
/// Made fresh per operation: the handle caches usbmuxd's device id, which changes across a reboot.
/// Not Sendable: lives on the owning `DeviceSession` actor.
final class DeviceHandle {
    let udid: String
    private let handle: idevice_t

    /// Looks the device up through usbmuxd.
    /// - Throws: `DeviceError.deviceNotFound` (with the attached UDIDs) or `.usbmuxdUnreachable`.
    init(udid: String) throws {
        var device: idevice_t?
        let code = idevice_new_with_options(&device, udid, Self.lookup)
        guard code == IDEVICE_E_SUCCESS, let device else {
            if let device { idevice_free(device) }
            // NO_DEVICE means "not found" or "usbmuxd unreachable": the list tells which.
            let attached = try USBMuxDeviceList.entries().map(\.udid)
            if code == IDEVICE_E_NO_DEVICE { throw DeviceError.deviceNotFound(udid: udid, attached: attached) }
            throw DeviceError.mapped(idevice: code.rawValue, operation: "idevice_new_with_options", udid: udid)
        }
        self.udid = udid
        self.handle = device
    }

    deinit { idevice_free(handle) }

    /// USB devices and usbmuxd's network devices, like `idevice_get_device_list_extended` lists them.
    private static let lookup = idevice_options(IDEVICE_LOOKUP_USBMUX.rawValue | IDEVICE_LOOKUP_NETWORK.rawValue)

    func withHandle<Result>(_ body: (idevice_t) throws -> Result) rethrows -> Result {
        try body(handle)
    }
}

/// The devices usbmuxd lists right now.
enum USBMuxDeviceList {
    struct Entry: Sendable, Hashable {
        var udid: String
        var connection: DeviceInfo.Connection
    }

    /// - Throws: `DeviceError.usbmuxdUnreachable` naming the address that was tried.
    static func entries() throws -> [Entry] {
        var list: UnsafeMutablePointer<idevice_info_t?>?
        var count: Int32 = 0
        let code = idevice_get_device_list_extended(&list, &count)
        guard code == IDEVICE_E_SUCCESS else {
            // libimobiledevice 1.3.0 answers NO_DEVICE exactly when usbmuxd_get_device_list fails.
            let call = LibraryCall.idevice(code.rawValue, operation: "idevice_get_device_list_extended")
            throw DeviceError.usbmuxdUnreachable(address: USBMuxAddress.configured, call: call)
        }
        defer { idevice_device_list_extended_free(list) }
        var result: [Entry] = []
        for index in 0..<Int(count) {
            guard let info = list?[index]?.pointee, let udid = info.udid else { continue }
            let connection: DeviceInfo.Connection = info.conn_type == CONNECTION_NETWORK ? .network : .usb
            result.append(Entry(udid: String(cString: udid), connection: connection))
        }
        return result
    }
}
