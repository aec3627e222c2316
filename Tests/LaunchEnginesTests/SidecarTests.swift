import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import LaunchEngines

/// The sidecar's failure paths against a stand-in pymobiledevice3 (Fixtures/pymobiledevice3): every
/// one is a clear error within the time allowed, and no process is left behind.
@Suite(.tags(.subprocess), .timeLimit(.minutes(1))) struct SidecarTests {
    func engine(
        mode: String, executable: String = EngineFixtures.pymobiledevice3.path, startTimeout: Duration = .seconds(10)
    )
        -> (Pymobiledevice3Engine, URL)
    {
        let folder = EngineFixtures.temporaryFolder()
        let engine = EngineFixtures.setup(
            executable,
            environment: [
                "STANDIN_PMD3_MODE": mode, "STANDIN_PMD3_ARGV": folder.appendingPathComponent("argv").path,
                "STANDIN_PMD3_PIDFILE": folder.appendingPathComponent("pid").path,
            ],
            startTimeout: startTimeout
        ).engine(logs: folder)
        return (engine, folder)
    }

    @Test func aSidecarThatExitsIsAnErrorQuotingWhatItSaid() async throws {
        let (engine, folder) = engine(mode: "exit")
        let device = EngineFixtures.device(ios: "17.5")
        do {
            _ = try await engine.sidecar(for: device)
            Issue.record("expected the sidecar to fail")
        } catch let error as EngineError {
            let text = error.errorDescription ?? ""
            #expect(text.contains("exited with status 1 before it listened"))
            #expect(text.contains("ERROR Device is not connected"))
            #expect(text.contains(folder.appendingPathComponent("\(device.udid)/pymobiledevice3.log").path))
        }
        let argv = try String(contentsOf: folder.appendingPathComponent("argv"), encoding: .utf8)
        #expect(argv.hasPrefix("--no-color developer debugserver start-server --udid \(device.udid) --local-port "))
        #expect(argv.hasSuffix(" --userspace\n"))  // iOS 17.4+: the no-root userspace tunnel
    }

    @Test func aSidecarThatNeverListensIsStoppedAtTheStartTimeout() async throws {
        // A shell stand-in writes its pid in a millisecond: the Python one, under load, was sometimes stopped at
        // the start timeout before it had run its first line, and left no pid to check.
        let scripts = EngineFixtures.temporaryFolder()
        let hanging = scripts.appendingPathComponent("pymobiledevice3")
        try Data("#!/bin/sh\nprintf %s $$ > \"$STANDIN_PMD3_PIDFILE\"\nexec sleep 120\n".utf8).write(to: hanging)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hanging.path)
        let (engine, folder) = engine(mode: "hang", executable: hanging.path, startTimeout: .seconds(3))
        let started = ContinuousClock.now
        do {
            _ = try await engine.sidecar(for: EngineFixtures.device(ios: "16.7"))
            Issue.record("expected the sidecar to time out")
        } catch let error as EngineError {
            #expect(error.errorDescription?.contains("did not listen within 3 s and was stopped") == true)
        }
        // Without the start timeout a hanging sidecar never returns; the bound is loose because a loaded 2-core
        // CI machine took 12.9 s here (the wait itself is checked by the message above, not by a stopwatch).
        #expect(ContinuousClock.now - started < .seconds(60))
        let pid = try #require(Int32(try String(contentsOf: folder.appendingPathComponent("pid"), encoding: .utf8)))
        #expect(await isGone(pid))  // stopped, not left behind
        #expect(!HelperRegistry.alive.contains(pid))
    }

    @Test func aMissingProgramNamesTheInstallCommand() async throws {
        let (engine, _) = engine(mode: "exit", executable: "/nonexistent/pymobiledevice3")
        do {
            _ = try await engine.sidecar(for: EngineFixtures.device(ios: "17.5"))
            Issue.record("expected a missing-program error")
        } catch let error as EngineError {
            #expect(error.errorDescription?.contains("Scripts/bootstrap --with-pymobiledevice3") == true)
        }
    }

    /// A base driver whose forwarded launch connects to the sidecar's port and fails as the real loop
    /// does when the forwarder closes the connection.
    final class ClosingBase: ForwardedDebugserverLaunching, Sendable {
        func listDevices(reading udids: [String]?) async throws -> DeviceListing {
            DeviceListing(devices: [])
        }
        func uninstall(bundleID: String, on udid: String) async throws {}
        func install(_ app: AppBundle, on udid: String, timeout: Duration) async throws {}
        func restart(_ udid: String, timeout: Duration) async throws {}
        func launch(_ request: LaunchRequest, on udid: String, observer: any LaunchObserver) async throws
            -> LaunchTermination
        {
            .exited(status: 0)
        }
        func launch(
            _ request: LaunchRequest, on udid: String, forwardedPort port: UInt16, forwarder: String,
            observer: any LaunchObserver
        ) async throws -> LaunchTermination {
            let socket = try FileHandle.connectLoopback(port: port)
            _ = socket.availableData  // the stand-in closes at once
            struct Closed: LocalizedError { var errorDescription: String? }
            throw Closed(errorDescription: "\(forwarder) closed the connection before replying")
        }
    }

    /// Through lockdown (iOS ≤ 16) the sidecar is reused after a failed launch; over an iOS 17+ tunnel it
    /// is replaced, since pymobiledevice3 keeps forwarding after its tunnel died.
    @Test(arguments: ["16.7", "17.5"])
    func aLaunchFailureQuotesTheSidecarsAdvice(ios: String) async throws {
        let (engine, _) = engine(mode: "ddi")
        let device = EngineFixtures.device(ios: ios)
        let tunnelled = ios == "17.5"
        let router = EngineRouter(
            selection: .forced(.pymobiledevice3),
            host: EngineHost(isMacOS: false, pymobiledevice3: EngineFixtures.pymobiledevice3.path))
        let driver = EngineRoutingDriver(
            base: ClosingBase(), router: router, devices: [device], pymobiledevice3: engine)
        #expect(router.decision(for: device).engine == .pymobiledevice3)
        for _ in 0..<2 {
            do {
                _ = try await driver.launch(
                    LaunchRequest(bundleID: "com.example.sample"), on: device.udid, observer: RecordingObserver())
                Issue.record("expected the launch to fail")
            } catch let error as EngineError {
                let text = error.errorDescription ?? ""
                #expect(text.contains("DeveloperDiskImage.dmg has been mounted"))
                #expect(text.contains("pymobiledevice3 mounter auto-mount --udid \(device.udid)"))
                #expect(error.failureKind == .launchRefused)
                #expect(text.contains("The next launch starts a new forwarder and tunnel") == tunnelled)
            }
        }
        let running = await engine.runningProcessIdentifiers
        #expect(running.count == (tunnelled ? 0 : 1))  // through lockdown: one sidecar per device, reused
        await driver.shutdown()
        #expect(await engine.runningProcessIdentifiers.isEmpty)
        for pid in running { #expect(await isGone(pid)) }  // gone, not just forgotten
    }
}

/// Whether `pid` no longer exists, allowing Foundation a moment to reap it (a zombie still answers `kill(pid, 0)`).
func isGone(_ pid: Int32) async -> Bool {
    for _ in 0..<100 {
        if kill(pid, 0) != 0 { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return false
}

extension FileHandle {
    /// A TCP connection to 127.0.0.1:`port` (test helper).
    static func connectLoopback(port: UInt16) throws -> FileHandle {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }
}
