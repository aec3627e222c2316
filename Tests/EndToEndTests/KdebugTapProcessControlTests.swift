import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import MobileDevice
import TestSupport
import Testing

@testable import LaunchEngines

extension RealPymobiledevice3Tests {
    /// The kdebug helper's processcontrol commands on the real pymobiledevice3, against the emulated phones
    /// (lockdown with TLS on 16.7, the userspace tunnel on 17.5): launch, pid for bundle and kill go over the
    /// session's own DTX connection, and the app's output and end come back on stdout beside the kdebug chunks.
    @Suite(.timeLimit(.minutes(5)), installed) struct KdebugTapProcessControlTests {
        typealias E = EndToEnd

        /// The helper script as launchbench writes it, run on one device; its stdout read line by line as JSON.
        final class Helper {
            let child: ChildProcess
            private(set) var seen: [[String: Any]] = []
            private var returned: Set<Int> = []

            init(device: EmulatedDevice) async throws {
                let executable = try #require(Pymobiledevice3EndToEnd.executable)
                let python = try await PythonInterpreter.resolve(program: executable).python
                let address = try await SharedTestLab.address()
                let path = String(address.dropFirst("UNIX:".count))
                var arguments = [
                    try Pymobiledevice3KdebugTracer.scriptFile().path, "--udid", device.udid, "--usbmux", path,
                ]
                if (device.osVersion?.major ?? 0) >= 17 { arguments += ["--transport", "userspace"] }
                let environment = try Pymobiledevice3ChecksumFix.environment(
                    adding: try Pymobiledevice3USBMux.environment(for: .unix(path: path)))
                child = try ChildProcess(
                    executable: python, arguments: arguments, environment: environment, writableInput: true)
            }

            /// A number of a JSON line (Foundation on Linux reads `0` as an NSNumber that `as? Int` refuses).
            static func int(_ object: [String: Any]?, _ key: String) -> Int? {
                (object?[key] as? NSNumber)?.intValue
            }

            func send(_ command: [String: Any]) throws {
                let data = try JSONSerialization.data(withJSONObject: command, options: [.sortedKeys])
                try child.send(line: String(decoding: data, as: UTF8.self))
            }

            /// The first line satisfying `match` not returned before, read on when none is in ``seen`` yet
            /// (answers and events may come in either order).
            func next(_ what: String, _ match: ([String: Any]) -> Bool) async throws -> [String: Any] {
                if let index = seen.indices.first(where: { !returned.contains($0) && match(seen[$0]) }) {
                    returned.insert(index)
                    return seen[index]
                }
                while let line = try await child.readLine(timeout: .seconds(60)) {
                    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                    else { continue }
                    seen.append(object)
                    if match(object) {
                        returned.insert(seen.count - 1)
                        return object
                    }
                }
                Issue.record("no \(what); stderr: \(child.standardError)")
                throw CancellationError()
            }

            func next(type: String, id: Int? = nil, pid: Int? = nil) async throws -> [String: Any] {
                try await next("\(type) \(id.map(String.init) ?? "") \(pid.map(String.init) ?? "")") {
                    $0["type"] as? String == type && (id == nil || Helper.int($0, "id") == id)
                        && (pid == nil || Helper.int($0, "pid") == pid)
                }
            }

            /// What the helper forwarded of `pid`'s output so far.
            func output(of pid: Int) -> String {
                seen.filter { $0["type"] as? String == "output" && Helper.int($0, "pid") == pid }.compactMap {
                    $0["text"] as? String
                }.joined()
            }

            func stop() async throws -> Int32? {
                try child.finishInput()
                return try await child.waitForExit(timeout: .seconds(30))
            }
        }

        @Test(arguments: ["16.7", "17.5"])
        func launchFindKillAndOutputThroughTheTapsConnection(ios: String) async throws {
            try await E.withDevices([("iPhone14,5", ios)]) { devices in
                let device = devices[0]
                var profile = E.profile()
                profile.exitAfterDone = false
                let app = try E.makeApp("Controlled", profile: profile)
                try await MobileDeviceDriver().install(app, on: device.udid, timeout: .seconds(60))
                let helper = try await Helper(device: device)
                _ = try await helper.next(type: "ready")

                try helper.send([
                    "cmd": "launch", "id": 1, "bundle": app.bundleID, "args": ["-x"], "env": ["GREETING": "hi there"],
                    "kill_existing": true,
                ])
                let pid = try #require(Helper.int(try await helper.next(type: "launched", id: 1), "pid"))
                _ = try await helper.next("done") { _ in helper.output(of: pid).contains("[launchbench] done\n") }
                #expect(helper.output(of: pid).contains("[launchbench] mark=firstFrame t="))
                // The launch's kdebug events reach the session on the same connection.
                if !helper.seen.contains(where: { $0["type"] as? String == "chunk" }) {
                    _ = try await helper.next(type: "chunk")
                }
                let received = try #require(device.services.launchHistory.last)
                #expect(received.environment == [EnvironmentVariable(name: "GREETING", value: "hi there")])

                try helper.send(["cmd": "pid", "id": 2, "bundle": app.bundleID])
                #expect(Helper.int(try await helper.next(type: "pid", id: 2), "pid") == pid)
                try helper.send(["cmd": "kill", "id": 3, "pid": pid])
                _ = try await helper.next(type: "killed", id: 3)
                let ended = try await helper.next(type: "terminated", pid: pid)
                #expect(Helper.int(ended, "signal") == 9 && ended["exit_code"] is NSNull)
                try helper.send(["cmd": "pid", "id": 4, "bundle": app.bundleID])
                #expect(Helper.int(try await helper.next(type: "pid", id: 4), "pid") == 0)

                try helper.send(["cmd": "launch", "id": 5, "bundle": "com.example.absent", "kill_existing": true])
                let refused = try await helper.next(type: "refused", id: 5)
                #expect(refused["cmd"] as? String == "launch")
                // The phone's NSErrors by their parts, FrontBoard's NotFound at the bottom, for launchbench to name
                // the cause.
                let deepest = (refused["errors"] as? [[String: Any]])?.last
                #expect(deepest?["domain"] as? String == "FBSOpenApplicationErrorDomain", "\(refused)")
                #expect(Helper.int(deepest, "code") == 4 && deepest?["code_name"] as? String == "NotFound")
                let reason = deepest?["reason"] as? String
                #expect(reason?.contains("returned nil for \"com.example.absent\"") == true, "\(refused)")
                #expect(try await helper.stop() == 0)
            }
        }
    }
}
