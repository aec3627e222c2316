import Foundation
import NIOCore

/// The usbmuxd wire format: a 16-byte little-endian header (length, version, message, tag), then an
/// XML plist. Only the plist protocol (version 1, message 8) is spoken, as libusbmuxd 2.0.2 does.
enum USBMuxFrame {
    static let headerLength = 16
    static let plistVersion: UInt32 = 1
    static let plistMessage: UInt32 = 8
    /// Larger requests are a protocol error (real requests are a few hundred bytes; pair records a few KB).
    static let maximumLength = 1024 * 1024

    /// usbmuxd `Result` numbers.
    enum Result: Int {
        case ok = 0
        case badCommand = 1
        case badDevice = 2
        case connectionRefused = 3
    }

    /// One complete frame in a single buffer, so it is written with one write.
    static func encode(_ dictionary: [String: Any], tag: UInt32) -> ByteBuffer {
        frame(PropertyList.xml(dictionary), tag: tag)
    }

    /// A plist message whose body (XML plist bytes) is already encoded.
    static func frame(_ body: Data, tag: UInt32) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: headerLength + body.count)
        buffer.writeInteger(UInt32(headerLength + body.count), endianness: .little)
        buffer.writeInteger(plistVersion, endianness: .little)
        buffer.writeInteger(plistMessage, endianness: .little)
        buffer.writeInteger(tag, endianness: .little)
        buffer.writeBytes(body)
        return buffer
    }

    static func result(_ result: Result, tag: UInt32) -> ByteBuffer {
        encode(["MessageType": "Result", "Number": result.rawValue], tag: tag)
    }

    /// A device as `ListDevices` and `Attached` present it (the shape real usbmuxd 1.1.1 sends).
    static func deviceEntry(_ device: EmulatedDevice) -> [String: Any] {
        [
            "MessageType": "Attached",
            "DeviceID": device.deviceID,
            "Properties": [
                "ConnectionSpeed": 480_000_000,
                "ConnectionType": "USB",
                "DeviceID": device.deviceID,
                "LocationID": 0,
                "ProductID": 0x12A8,
                "SerialNumber": device.udid,
            ] as [String: Any],
        ]
    }

    /// The port a `Connect` asks for: libusbmuxd sends `htons(port)` as a plain integer.
    static func port(fromWire value: Int) -> Int {
        let raw = UInt16(truncatingIfNeeded: value)
        return Int(UInt16(bigEndian: raw))
    }
}
