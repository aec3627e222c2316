import Foundation

/// `com.apple.instruments.server.services.deviceinfo`: the mach clock and its timebase.
final class DeviceInfoChannel: InstrumentsChannel {
    static let identifier = "com.apple.instruments.server.services.deviceinfo"

    private let lab: EmulatedLab

    init(lab: EmulatedLab) {
        self.lab = lab
    }

    func receive(selector: String, arguments: [DTXArgument], replies: InstrumentsReplies) {
        switch selector {
        case "machTimeInfo":
            // [mach_absolute_time, numer, denom, …]: the real array's further elements are unverified.
            let ticks = NSNumber(value: MachClock.now(lab: lab))
            replies.object(
                [ticks, NSNumber(value: MachClock.numerator), NSNumber(value: MachClock.denominator)] as NSArray)
        default:
            replies.error("deviceinfo: unsupported selector \(selector)")
        }
    }
}
