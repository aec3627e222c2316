import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import LaunchEngines

/// How process control reads the helper's lines: a refused launch with the phone's NSError becomes the named
/// error, and a closed processcontrol channel ends every running process's stream as lost.
@Suite(.timeLimit(.minutes(1))) struct KdebugTapProcessControlLinesTests {
    /// A control whose commands are kept, with the ids they were sent with.
    static func control() -> (KdebugTapProcessControl, Locked<[[String: Any]]>) {
        let sent = Locked<[[String: Any]]>([])
        let control = KdebugTapProcessControl(udid: "U1") { data in
            if let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] {
                sent.withLock { $0.append(object) }
            }
        }
        return (control, sent)
    }

    /// The id of the `index`th command, once it was sent.
    static func id(_ sent: Locked<[[String: Any]]>, _ index: Int) async throws -> Int {
        for _ in 0..<1000 {
            if let id = sent.withLock({ $0.count > index ? ($0[index]["id"] as? NSNumber)?.intValue : nil }) {
                return id
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw CancellationError()
    }

    static let request = LaunchRequest(bundleID: "com.example.app", arguments: [], environment: [])

    @Test func aRefusalWithThePhonesErrorNamesItsCause() async throws {
        let (control, sent) = Self.control()
        let launch = Task { try await control.launch(Self.request) }
        let id = try await Self.id(sent, 0)
        #expect(
            control.handle([
                "type": "refused", "id": id, "cmd": "launch", "error": "DTXNsError", "message": "raw",
                "errors": [
                    [
                        "domain": "com.apple.dt.deviceprocesscontrolservice", "code": 2,
                        "description": "Request to launch com.example.app failed.",
                    ],
                    [
                        "domain": "FBSOpenApplicationErrorDomain", "code": 3, "code_name": "Security",
                        "reason": "Unable to launch com.example.app because it has an invalid code signature",
                    ],
                ],
            ]))
        let error = try await #require(throws: ProcessControlError.self) { try await launch.value }
        #expect(error.kind == .refused)
        #expect(error.message.hasPrefix("U1 refused to launch com.example.app through process control: its code"))
        #expect(error.refusal?.cause == .security)
    }

    @Test func aRefusalWithoutAnNSErrorKeepsTheHelpersWords() async throws {
        let (control, sent) = Self.control()
        let launch = Task { try await control.launch(Self.request) }
        let id = try await Self.id(sent, 0)
        _ = control.handle(["type": "refused", "id": id, "cmd": "launch", "error": "no-pid", "message": "no pid"])
        let error = try await #require(throws: ProcessControlError.self) { try await launch.value }
        #expect(error.message == "no pid")
    }

    /// Events that came before the launch's answer was taken keep their order, output after the termination notice
    /// still reaches the process's stream (the phone promises no order between them), and the next launch ends it.
    @Test func outputAfterTheTerminationNoticeReachesTheStreamUntilTheNextLaunch() async throws {
        let (control, sent) = Self.control()
        let launch = Task { try await control.launch(Self.request) }
        _ = control.handle(["type": "launched", "id": try await Self.id(sent, 0), "pid": 42])
        for text in ["[launchbench] main 1\n", "[launchbench] firstFrame 2\n"] {
            _ = control.handle(["type": "output", "pid": 42, "text": text])
        }
        _ = control.handle(["type": "terminated", "pid": 42, "exit_code": 0])
        let process = try await launch.value
        _ = control.handle(["type": "output", "pid": 42, "text": "[launchbench] done\n"])
        let next = Task { try await control.launch(Self.request) }
        _ = control.handle(["type": "launched", "id": try await Self.id(sent, 1), "pid": 43])
        _ = try await next.value
        var events: [ProcessEvent] = []
        for await event in process.events { events.append(event) }
        #expect(
            events == [
                .output(Array("[launchbench] main 1\n".utf8)), .output(Array("[launchbench] firstFrame 2\n".utf8)),
                .terminated(exitCode: 0, signal: nil), .output(Array("[launchbench] done\n".utf8)),
            ])
    }

    @Test func aClosedChannelEndsTheRunningProcessesStreamsAsLost() async throws {
        let (control, sent) = Self.control()
        let launch = Task { try await control.launch(Self.request) }
        let id = try await Self.id(sent, 0)
        _ = control.handle(["type": "launched", "id": id, "pid": 42])
        let process = try await launch.value
        _ = control.handle(["type": "output", "pid": 42, "text": "[launchbench] main\n"])
        #expect(control.handle(["type": "control-lost", "reason": "channel cancelled by remote"]))
        var events: [ProcessEvent] = []
        for await event in process.events { events.append(event) }
        #expect(events.count == 2)
        #expect(events.first == .output(Array("[launchbench] main\n".utf8)))
        guard case .lost(let reason) = events.last else {
            Issue.record("\(events)")
            return
        }
        #expect(reason.contains("channel cancelled by remote"))
    }
}
