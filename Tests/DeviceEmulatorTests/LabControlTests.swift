import DeviceEmulator
import EmulatorTestSupport
import Foundation
import TestSupport
import Testing

@Suite(.tags(.emulator), .timeLimit(.minutes(2))) struct LabControlTests {
    @Test func linesParseIntoCommands() throws {
        #expect(try LabControl.parse("detach 0000-AB") == .detach(udid: "0000-AB"))
        #expect(try LabControl.parse("  ATTACH 0000-AB ") == .attach(udid: "0000-AB"))
        #expect(try LabControl.parse("reboot 0000-AB") == .reboot(udid: "0000-AB", seconds: 5))
        #expect(try LabControl.parse("reboot 0000-AB 0.5") == .reboot(udid: "0000-AB", seconds: 0.5))
        #expect(try LabControl.parse("list") == .list)
        #expect(try LabControl.parse("") == nil)
    }

    @Test(arguments: ["unplug X", "detach", "detach A B", "reboot X soon", "reboot X -1", "list all"])
    func badLinesSayWhatToTypeInstead(line: String) {
        do {
            _ = try LabControl.parse(line)
            Issue.record("'\(line)' parsed")
        } catch {
            #expect("\(error.localizedDescription)".contains(LabControl.usage), "\(error)")
        }
    }

    @Test func commandsDriveTheLabAndAnswerInOneLine() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 2, osVersion: "14.8")) { lab in
            let udid = lab.devices[0].udid
            #expect(await LabControl.handle("detach \(udid)", on: lab) == "ok detached \(udid)")
            #expect(lab.devices[0].isAttached == false)
            #expect(await LabControl.handle("list", on: lab)?.contains("\(udid) detached") == true)
            #expect(await LabControl.handle("attach \(udid)", on: lab) == "ok attached \(udid)")
            #expect(lab.devices[0].isAttached)
            #expect(await LabControl.handle("reboot \(udid) 0.1", on: lab) == "ok rebooted \(udid)")
            #expect(lab.devices[0].isAttached)
            let unknown = await LabControl.handle("detach NOPE", on: lab)
            #expect(unknown?.hasPrefix("error: No emulated device with UDID NOPE") == true)
        }
    }
}
