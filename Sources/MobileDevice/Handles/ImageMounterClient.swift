internal import CIMobileDevice
import Foundation

/// Owns a `mobile_image_mounter_client_t` (only `LookupImage` is used) and frees it in `deinit`.
/// Not Sendable: lives on the `USBMuxSession` actor.
final class ImageMounterClient {
    let udid: String
    private let handle: mobile_image_mounter_client_t

    /// Starts `com.apple.mobile.mobile_image_mounter` through lockdown.
    /// - Throws: `DeviceError.serviceUnavailable` (as `.failed`) when the device does not offer it.
    init(device: DeviceHandle) throws {
        let operation = "mobile_image_mounter_start_service"
        udid = device.udid
        handle = try makeClient(
            operation, udid: device.udid, success: MOBILE_IMAGE_MOUNTER_E_SUCCESS, free: mobile_image_mounter_free,
            new: { client in
                device.withHandle { mobile_image_mounter_start_service($0, &client, "launchbench") }
            },
            check: { code in
                guard code == MOBILE_IMAGE_MOUNTER_E_SUCCESS else {
                    throw DeviceError.protocolError(
                        operation: operation, udid: device.udid, detail: "error \(code.rawValue)")
                }
            })
    }

    deinit {
        mobile_image_mounter_hangup(handle)
        mobile_image_mounter_free(handle)
    }

    /// Whether an image of `type` (`Developer`, `Personalized`) is mounted: `ImageSignature` non-empty,
    /// or `ImagePresent` on old iOS. `nil` when the reply says neither.
    func isMounted(type: String) throws -> Bool? {
        var result: plist_t?
        let code = mobile_image_mounter_lookup_image(handle, type, &result)
        let owned = PlistNode(owning: result)
        guard code == MOBILE_IMAGE_MOUNTER_E_SUCCESS, let reply = owned?.value else {
            throw DeviceError.protocolError(
                operation: "mobile_image_mounter_lookup_image \(type)", udid: udid, detail: "error \(code.rawValue)")
        }
        if case .array(let signatures)? = reply["ImageSignature"] { return !signatures.isEmpty }
        return reply["ImagePresent"]?.boolValue
    }
}
