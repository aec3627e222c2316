internal import CIMobileDevice
import Foundation
import LaunchBench

/// Which usbmuxd this process's libimobiledevice reaches, whatever its address is spelled like.
extension USBMuxAddress {
    /// The `SystemBUID` the configured usbmuxd answers to `ReadBUID`: one per usbmuxd (its host's pairing
    /// identity), so a symlinked socket, `/run/usbmuxd` for `/var/run/usbmuxd` or a TCP relay of the same
    /// daemon give the same value. `nil` when usbmuxd cannot be reached or does not answer.
    /// Blocks for one usbmuxd round trip.
    package static func configuredSystemBUID() -> String? {
        var buid: UnsafeMutablePointer<CChar>?
        let code = usbmuxd_read_buid(&buid)
        defer { free(buid) }
        guard code == 0, let buid else { return nil }
        let text = String(cString: buid)
        return text.isEmpty ? nil : text
    }
}
