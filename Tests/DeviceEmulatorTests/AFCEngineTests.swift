import Foundation
import NIOCore
import Testing

@testable import DeviceEmulator

@Suite struct AFCEngineTests {
    static func tempRoot() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("afc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func request(_ number: UInt64, _ op: AFCOperation, _ header: [UInt8] = [], payload: [UInt8] = [])
        -> AFCPacket
    {
        AFCPacket(packetNumber: number, operation: op.rawValue, headerData: header, payload: payload)
    }

    static func path(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }
    static func u64(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    static func statusCode(_ packet: AFCPacket) -> UInt64? {
        packet.operation == AFCOperation.status.rawValue && packet.headerData.count == 8
            ? AFCEngine.uint64(packet.headerData, at: 0) : nil
    }

    @Test func headerIsFortyBytesLittleEndianAndDecodesAcrossSplits() throws {
        let packet = Self.request(7, .fileWrite, Self.u64(1), payload: Array("hello".utf8))
        var encoded = packet.encoded()
        #expect(encoded.readableBytes == 40 + 8 + 5)
        #expect(encoded.getBytes(at: 0, length: 8) == Array("CFA6LPAA".utf8))
        #expect(encoded.getInteger(at: 8, endianness: .little, as: UInt64.self) == 53)
        #expect(encoded.getInteger(at: 16, endianness: .little, as: UInt64.self) == 48)
        #expect(encoded.getInteger(at: 24, endianness: .little, as: UInt64.self) == 7)
        var partial = encoded.readSlice(length: 30)!
        #expect(try AFCPacketDecoder.decodePacket(from: &partial, maximumLength: 1 << 20) == nil)
        partial.writeBuffer(&encoded)
        #expect(try AFCPacketDecoder.decodePacket(from: &partial, maximumLength: 1 << 20) == packet)
    }

    @Test func uploadsAFolderTheWayIdeviceinstallerDoes() throws {
        let root = try Self.tempRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let engine = AFCEngine(root: root)
        #expect(Self.statusCode(engine.reply(to: Self.request(1, .getFileInfo, Self.path("PublicStaging")))) == 8)
        #expect(Self.statusCode(engine.reply(to: Self.request(2, .makeDir, Self.path("PublicStaging")))) == 0)
        #expect(
            Self.statusCode(engine.reply(to: Self.request(3, .makeDir, Self.path("PublicStaging/Sample.app")))) == 0)
        #expect(
            Self.statusCode(engine.reply(to: Self.request(4, .makeDir, Self.path("PublicStaging/Sample.app")))) == 0)
        let open = engine.reply(
            to: Self.request(5, .fileOpen, Self.u64(3) + Self.path("PublicStaging/Sample.app/Info.plist")))
        #expect(open.operation == AFCOperation.fileOpenResult.rawValue)
        #expect(open.packetNumber == 5)
        let handle = open.headerData
        #expect(handle.count == 8 && handle != Self.u64(0))
        #expect(Self.statusCode(engine.reply(to: Self.request(6, .fileWrite, handle, payload: Array("abc".utf8)))) == 0)
        #expect(Self.statusCode(engine.reply(to: Self.request(7, .fileWrite, handle, payload: Array("def".utf8)))) == 0)
        #expect(Self.statusCode(engine.reply(to: Self.request(8, .fileClose, handle))) == 0)
        let written = try String(
            contentsOf: root.appendingPathComponent("PublicStaging/Sample.app/Info.plist"), encoding: .utf8)
        #expect(written == "abcdef")

        let info = engine.reply(to: Self.request(9, .getFileInfo, Self.path("/PublicStaging/Sample.app/Info.plist")))
        #expect(info.operation == AFCOperation.data.rawValue)
        let fields = AFCEngine.strings(info.payload)
        #expect(fields.prefix(2) == ["st_size", "6"])
        #expect(fields.contains("S_IFREG"))
        let dir = engine.reply(to: Self.request(10, .readDir, Self.path("PublicStaging/Sample.app")))
        #expect(AFCEngine.strings(dir.payload) == [".", "..", "Info.plist"])

        #expect(
            Self.statusCode(engine.reply(to: Self.request(11, .removePath, Self.path("PublicStaging/Sample.app")))) == 1
        )
        #expect(
            Self.statusCode(
                engine.reply(
                    to: Self.request(
                        12, .rename, Self.path("PublicStaging/Sample.app") + Self.path("PublicStaging/B.app")))) == 0)
        #expect(
            Self.statusCode(
                engine.reply(
                    to: Self.request(
                        13, .makeLink, Self.u64(2) + Self.path("Info.plist") + Self.path("PublicStaging/B.app/link"))))
                == 0)
        #expect(
            Self.statusCode(
                engine.reply(to: Self.request(14, .removePathAndContents, Self.path("PublicStaging/B.app")))) == 0)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("PublicStaging/B.app").path))
    }

    @Test func refusesEscapesAndUnknownOperations() throws {
        let root = try Self.tempRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let engine = AFCEngine(root: root)
        #expect(Self.statusCode(engine.reply(to: Self.request(1, .getFileInfo, Self.path("../../etc/passwd")))) == 10)
        #expect(
            Self.statusCode(engine.reply(to: AFCPacket(packetNumber: 2, operation: 0x15, headerData: [], payload: [])))
                == 15)
        #expect(Self.statusCode(engine.reply(to: Self.request(3, .fileClose, Self.u64(42)))) == 7)
        let device = engine.reply(to: Self.request(4, .getDeviceInfo))
        #expect(AFCEngine.strings(device.payload).contains("FSFreeBytes"))
    }
}
