import Foundation

/// The NSError an ERROR reply carries, archived as class `NSError` with the keys Apple's NSError writes and
/// pymobiledevice3 reads (`NSDomain`, `NSCode`, `NSUserInfo`; `dtx/ns_types.py`). Foundation's own NSError
/// cannot be archived on Linux: swift-corelibs-foundation's NSError hashes through CoreFoundation back into
/// itself until the stack overflows, which took the emulator down at its first error reply. An error can wrap
/// another under `NSUnderlyingError`, archived as an NSError of its own, as a phone nests FrontBoard's error in
/// processcontrol's (``DeviceProcessControlError``).
final class ArchivedError: NSObject, NSCoding {
    let domain: String
    let code: Int
    let userInfo: [String: String]
    let underlying: ArchivedError?

    init(domain: String, code: Int, userInfo: [String: String], underlying: ArchivedError? = nil) {
        self.domain = domain
        self.code = code
        self.userInfo = userInfo
        self.underlying = underlying
    }

    /// What Foundation's `localizedDescription` gives a reader: the description, else "The operation couldn’t be
    /// completed." and the failure reason (DTSpringBoardProcessControlService quotes it in its own reason).
    var localizedDescription: String {
        if let description = userInfo[NSLocalizedDescriptionKey] { return description }
        let reason = userInfo[NSLocalizedFailureReasonErrorKey].map { " " + $0 } ?? ""
        return "The operation couldn\u{2019}t be completed.\(reason)"
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
        if let underlying { info[NSUnderlyingErrorKey as NSString] = underlying }
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
