import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import LaunchEngines

/// A kdebug helper that dies during a run is restarted like the sidecar: the feed goes on with the new
/// session's chunks, each helper keeps its own log, and one that keeps dying ends the feed saying so.
@Suite(.tags(.subprocess), .timeLimit(.minutes(1))) struct KdebugTapRestartTests {
    /// A stand-in helper: numbers its start, says so on stderr, reports ready, sends `session<N>` as a chunk,
    /// then SIGKILLs itself when `dies` holds for N, else runs until its stdin closes (as the real one).
    static func tracer(dies: String) throws -> (Pymobiledevice3KdebugTracer, URL) {
        let folder = EngineFixtures.temporaryFolder()
        let count = folder.appendingPathComponent("count").path
        let program = try KdebugTapTests.installation(
            python: """
                n=$(( $(cat '\(count)' 2>/dev/null || echo 0) + 1 )); echo $n > '\(count)'
                echo "helper $n started" >&2
                echo '{"type":"ready","numer":125,"denom":3}'
                echo "{\\"type\\":\\"chunk\\",\\"data\\":\\"$(printf 'session%s' $n | base64)\\"}"
                if \(dies); then kill -9 $$; fi
                cat > /dev/null
                """)
        let logs = folder.appendingPathComponent("logs")
        return (EngineFixtures.setup(program, startTimeout: .seconds(20)).tracer(logs: logs), logs)
    }

    @Test func aKilledHelperIsReplacedAndTheFeedGoesOn() async throws {
        let (tracer, logs) = try Self.tracer(dies: "[ $n -eq 1 ]")
        let device = EngineFixtures.device(ios: "14.8")
        let feed = try await tracer.startTrace(on: device)
        var received: [String] = []
        for try await chunk in feed.chunks {
            received.append(String(decoding: chunk, as: UTF8.self))
            if received.count == 2 { break }
        }
        await feed.stop()
        #expect(received == ["session1", "session2"])
        let folder = logs.appendingPathComponent(device.udid)
        let first = try String(contentsOf: folder.appendingPathComponent("kdebug-tap.log"), encoding: .utf8)
        let second = try String(contentsOf: folder.appendingPathComponent("kdebug-tap-2.log"), encoding: .utf8)
        #expect(first.contains("helper 1 started") && !first.contains("helper 2"), "\(first)")
        #expect(second.contains("helper 2 started"), "\(second)")
    }

    @Test func aHelperThatKeepsDyingEndsTheFeedSayingSo() async throws {
        let (tracer, _) = try Self.tracer(dies: "true")
        let feed = try await tracer.startTrace(on: EngineFixtures.device(ios: "14.8"))
        var received = 0
        let error = await #expect(throws: KdebugTapError.self) {
            for try await _ in feed.chunks { received += 1 }
        }
        #expect(received == KdebugTapRestarts.limit + 1)
        #expect(error?.errorDescription?.contains("died \(KdebugTapRestarts.limit + 1) times") == true)
        await feed.stop()
    }

    /// A fault a new helper would meet again (here, a phone that sends compressed messages) ends the feed at once
    /// with its own error and advice, not after three restarts as "died 4 times".
    @Test func aFaultThatWouldRecurIsNotRestarted() async throws {
        let folder = EngineFixtures.temporaryFolder()
        let count = folder.appendingPathComponent("count").path
        let program = try KdebugTapTests.installation(
            python: """
                n=$(( $(cat '\(count)' 2>/dev/null || echo 0) + 1 )); echo $n > '\(count)'
                echo '{"type":"ready","numer":125,"denom":3}'
                echo "{\\"type\\":\\"chunk\\",\\"data\\":\\"$(printf 'session%s' $n | base64)\\"}"
                sleep 0.5  # after the start: the fault arrives mid-session
                echo '{"type":"error","kind":"compressed","message":"an LZ4-compressed DTX message"}'
                exit 1
                """)
        let tracer = EngineFixtures.setup(program, startTimeout: .seconds(20)).tracer(
            logs: folder.appendingPathComponent("logs"))
        let feed = try await tracer.startTrace(on: EngineFixtures.device(ios: "14.8"))
        let error = await #expect(throws: KdebugTapError.self) {
            for try await _ in feed.chunks {}
        }
        await feed.stop()
        guard case .compressed? = error else {
            Issue.record("expected the compressed error itself, got \(String(describing: error))")
            return
        }
        #expect(
            try String(contentsOfFile: count, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == "1")
    }

    /// The reader takes the first session's header; a restarted session's header is cut off its first chunk.
    @Test func aRestartedSessionsHeaderIsCutOff() throws {
        let bytes = [UInt8](try Data(contentsOf: PackageRoot.at("Fixtures/kdebug/synth-launch.kdebug")))
        let recordsOffset = try KdebugHeader.decode(bytes).recordsOffset
        var pending = true
        let bplist = Array("bplist00".utf8)
        #expect(KdebugTapRestarts.withoutHeader(bplist, pending: &pending) == bplist && pending)
        #expect(KdebugTapRestarts.withoutHeader(bytes, pending: &pending) == Array(bytes[recordsOffset...]))
        #expect(!pending)
    }
}
