import Foundation

/// The NSError an ERROR reply carries, archived as class `NSError` with the keys Apple's NSError writes and
/// pymobiledevice3 reads (`NSDomain`, `NSCode`, `NSUserInfo`; `dtx/ns_types.py`). Foundation's own NSError
/// cannot be archived on Linux: swift-corelibs-foundation's NSError hashes through CoreFoundation back into
/// itself until the stack overflows, which took the emulator down at its first error reply.
final class ArchivedError: NSObject, NSCoding {
    let domain: String
    let code: Int
    let userInfo: [String: String]

    init(domain: String, code: Int, userInfo: [String: String]) {
        self.domain = domain
        self.code = code
        self.userInfo = userInfo
    }

    /// Archived under NSError's name (`$classname`), which is all the client reads of the class.
    override var classForKeyedArchiver: AnyClass? { NSError.self }

    /// Never decoded by the emulator (only the client reads errors).
    required init?(coder: NSCoder) { nil }

    func encode(with coder: NSCoder) {
        coder.encode(domain as NSString, forKey: "NSDomain")
        coder.encode(code, forKey: "NSCode")
        let info = NSMutableDictionary()
        for (key, value) in userInfo { info[key as NSString] = value as NSString }
        coder.encode(info, forKey: "NSUserInfo")
    }

    /// The archive's bytes.
    func archived() -> [UInt8] {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(self, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return Array(archiver.encodedData)
    }
}
