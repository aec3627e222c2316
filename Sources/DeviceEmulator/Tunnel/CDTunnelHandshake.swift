import Foundation
import LaunchBench
import NIOCore

/// The CDTunnel handshake (IOS17-TUNNEL.md §1.4): the host asks for a tunnel with its MTU, the device
/// answers with the host's address, its own address and the RemoteServiceDiscovery port inside it.
struct CDTunnelHandshake {
    /// The largest MTU the device agrees to: what pymobiledevice3 asks for (a real phone's reply is
    /// unverified; the client only needs it to be a sane size).
    static let maximumMTU = 16000
    /// IPv6's minimum link MTU (RFC 8200 §5): go-ios asks for exactly this.
    static let minimumMTU = 1280
    /// The RemoteServiceDiscovery port, as on the USB-NCM interface of a real phone.
    static let remoteServiceDiscoveryPort: UInt16 = 58783

    enum HandshakeError: Error, Equatable {
        case notJSON
        case unexpectedType(String?)
    }

    let deviceAddress: IPv6Address
    let hostAddress: IPv6Address
    let mtu: Int

    /// Reads the host's `clientHandshakeRequest` and picks the addresses for `udid`.
    init(request body: ByteBuffer, udid: String) throws(HandshakeError) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)),
            let request = object as? [String: Any]
        else { throw .notJSON }
        guard request["type"] as? String == "clientHandshakeRequest" else {
            throw .unexpectedType(request["type"] as? String)
        }
        let asked = (request["mtu"] as? Int) ?? Self.maximumMTU
        mtu = min(max(asked, Self.minimumMTU), Self.maximumMTU)
        let prefix = Self.uniqueLocalPrefix(for: udid)
        deviceAddress = IPv6Address(prefix: prefix, interface: 1)
        hostAddress = IPv6Address(prefix: prefix, interface: 2)
    }

    /// The `serverHandshakeResponse` frame: `CDTunnel`, a big-endian u16 length, the JSON.
    func responseFrame(allocator: ByteBufferAllocator) -> ByteBuffer {
        let response: [String: Any] = [
            "type": "serverHandshakeResponse",
            "clientParameters": ["address": hostAddress.description, "netmask": "ffff:ffff:ffff:ffff::", "mtu": mtu],
            "serverAddress": deviceAddress.description,
            "serverRSDPort": Int(Self.remoteServiceDiscoveryPort),
        ]
        let json = (try? JSONSerialization.data(withJSONObject: response, options: [.sortedKeys])) ?? Data()
        var frame = allocator.buffer(capacity: CDTunnelDecoder.headerLength + json.count)
        frame.writeBytes(CDTunnelDecoder.magic)
        frame.writeInteger(UInt16(json.count))
        frame.writeBytes(json)
        return frame
    }

    /// A /64 unique local prefix (RFC 4193: `fd` + a 40-bit global ID + subnet 0) fixed per device, so
    /// two emulated phones never share one and a test can predict it.
    static func uniqueLocalPrefix(for udid: String) -> [UInt8] {
        let hash = stableHash(udid)
        return [0xFD] + (0..<5).map { UInt8(truncatingIfNeeded: hash >> (8 * $0)) } + [0, 0]
    }
}
