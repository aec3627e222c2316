import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// iOS 14–16 offer `com.apple.debugserver.DVTSecureSocketProxy` with TLS on the service connection, as a
/// real device does (pymobiledevice3 asks for nothing else); the pair record carries real certificates.
/// The handshake itself is judged by the real clients (libimobiledevice in the MobileDevice and
/// end-to-end tests, pymobiledevice3 in Pymobiledevice3EndToEndTests).
@Suite(.tags(.emulator), .timeLimit(.minutes(1))) struct SecureDebugserverTests {
    static let specs = [
        EmulatedDeviceSpec(
            udid: "00008030-0000000000000B13", name: "Thirteen", productType: "iPhone12,1", osVersion: "13.7"),
        EmulatedDeviceSpec(
            udid: "00008030-0000000000000B14", name: "Fourteen", productType: "iPhone12,1", osVersion: "14.8"),
        EmulatedDeviceSpec(
            udid: "00008030-0000000000000B16", name: "Sixteen", productType: "iPhone14,5", osVersion: "16.7"),
        EmulatedDeviceSpec(
            udid: "00008030-0000000000000B17", name: "Seventeen", productType: "iPhone15,4", osVersion: "17.5"),
    ]

    @Test func theSecureNameIsOfferedWithServiceTLSFromIOS14To16() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            func start(_ service: String, on udid: String) throws -> [String: Any] {
                let client = try LockdownProtocolTests.session(lab, udid: udid)
                return try client.lockdown("StartService", ["Service": service])
            }
            let secure = "com.apple.debugserver.DVTSecureSocketProxy"
            for spec in Self.specs {
                let reply = try start(secure, on: spec.udid)
                let plain = try start("com.apple.debugserver", on: spec.udid)
                switch spec.osVersion {
                case "14.8", "16.7":
                    #expect(RawUSBMuxClient.integer(reply["Port"]) != nil, "\(spec.osVersion)")
                    #expect(reply["EnableServiceSSL"] as? Bool == true)
                    #expect(plain["EnableServiceSSL"] == nil && RawUSBMuxClient.integer(plain["Port"]) != nil)
                case "13.7":
                    #expect(reply["Error"] as? String == "InvalidService")  // arrived with iOS 14
                    #expect(RawUSBMuxClient.integer(plain["Port"]) != nil)
                default:
                    #expect(reply["Error"] as? String == "InvalidService")  // iOS 17: no debugserver in lockdown
                    #expect(plain["Error"] as? String == "InvalidService")
                }
            }
        }
    }

    @Test func thePairRecordCarriesPEMCertificatesAndKeys() async throws {
        try await PrivateLab.with(devices: [Self.specs[1]]) { lab in
            let client = try RawUSBMuxClient(socketPath: lab.socketPath!)
            let frame = try client.request("ReadPairRecord", ["PairRecordID": Self.specs[1].udid])
            let data = try #require(frame.plist["PairRecordData"] as? Data)
            let record = try #require(
                try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
            #expect(record["HostID"] as? String == lab.hostID)
            for key in ["RootCertificate", "HostCertificate", "DeviceCertificate"] {
                let pem = String(decoding: try #require(record[key] as? Data, "\(key)"), as: UTF8.self)
                #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----"), "\(key)")
            }
            for key in ["RootPrivateKey", "HostPrivateKey"] {
                let pem = String(decoding: try #require(record[key] as? Data, "\(key)"), as: UTF8.self)
                // RSA: libimobiledevice loads the key with an RSA-only call (PROTOCOLS §4.1).
                #expect(pem.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"), "\(key)")
            }
        }
    }
}
