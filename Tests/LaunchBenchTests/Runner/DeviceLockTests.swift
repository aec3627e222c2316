import Foundation
import Testing

@testable import LaunchBench

/// One run per device across processes (the cross-process case runs the built binary, in EndToEndTests).
@Suite struct DeviceLockTests {
    private let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "launchbench-locks-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    @Test func aHeldDeviceIsRefusedWithItsHolderAndFreedOnRelease() throws {
        guard
            case .success(let lock) = try DeviceLock.acquire(
                udid: "U1", folder: folder, command: "launchbench run A.app")
        else {
            Issue.record("the first lock failed")
            return
        }
        // flock locks belong to an open file: a second open in this same process is refused like another process.
        guard case .failure(let busy) = try DeviceLock.acquire(udid: "U1", folder: folder, command: "second") else {
            Issue.record("a held device was locked twice")
            return
        }
        #expect(
            busy.holder.pid == getpid() && busy.holder.command == "launchbench run A.app" && busy.holder.since != nil)
        #expect(busy.description.contains("process \(getpid()) (launchbench run A.app)"))
        guard case .success = try DeviceLock.acquire(udid: "U2", folder: folder) else {
            Issue.record("another device was busy")
            return
        }
        lock.release()
        guard case .success(let again) = try DeviceLock.acquire(udid: "U1", folder: folder, command: "third") else {
            Issue.record("a released device stayed busy")
            return
        }
        again.release()
    }

    @Test func aLockFileLeftByADeadProcessIsTakenOver() throws {
        let url = folder.appendingPathComponent(DeviceLock.fileName(udid: "U3", scope: nil))
        try Data("999999\nlaunchbench run Old.app\n2026-01-01T00:00:00Z\n".utf8).write(to: url)
        guard case .success(let lock) = try DeviceLock.acquire(udid: "U3", folder: folder, command: "new") else {
            Issue.record("a stale lock was not taken over")
            return
        }
        #expect(try String(contentsOf: url, encoding: .utf8).hasPrefix("\(getpid())\nnew\n"))
        lock.release()
    }

    @Test func theUsbmuxdScopesTheLockAndNamesAreFileSafe() {
        #expect(DeviceLock.fileName(udid: "00008030-001A", scope: nil) == "00008030-001A.lock")
        let a = DeviceLock.fileName(udid: "U/../x", scope: "UNIX:/tmp/a.sock")
        let b = DeviceLock.fileName(udid: "U/../x", scope: "UNIX:/tmp/b.sock")
        #expect(a != b && !a.contains("/") && a == DeviceLock.fileName(udid: "U/../x", scope: "UNIX:/tmp/a.sock"))
    }

    /// Two spellings of one usbmuxd are one lock: a symlinked socket, and (by its BUID) a TCP relay of it.
    @Test func theLockIsKeyedByTheUsbmuxdItReallyIs() throws {
        let socket = folder.appendingPathComponent("usbmuxd")
        _ = FileManager.default.createFile(atPath: socket.path, contents: nil)
        let link = folder.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: socket)
        let direct = DeviceLock.scope(usbmuxd: .unix(path: socket.path), systemBUID: nil)
        #expect(direct != nil && direct == DeviceLock.scope(usbmuxd: .unix(path: link.path), systemBUID: nil))
        #expect(direct == DeviceLock.scope(usbmuxd: .unix(path: folder.path + "/./usbmuxd"), systemBUID: nil))

        let buid = "1D7E4C2A-0000-4000-8000-000000000001"
        let byBUID = DeviceLock.scope(usbmuxd: .unix(path: socket.path), systemBUID: buid)
        #expect(byBUID == DeviceLock.scope(usbmuxd: .tcp(host: "127.0.0.1", port: 27015), systemBUID: buid))
        #expect(byBUID == DeviceLock.scope(usbmuxd: nil, systemBUID: buid))
        #expect(byBUID != DeviceLock.scope(usbmuxd: .unix(path: socket.path), systemBUID: "another"))

        // Without a BUID, the system daemon's socket however it is reached: the UDID alone, as before.
        #expect(DeviceLock.scope(usbmuxd: nil, systemBUID: nil) == nil)
        #expect(DeviceLock.scope(usbmuxd: .unix(path: USBMuxAddress.systemSocketPath), systemBUID: nil) == nil)
    }

    /// The default lock folder is private: an XDG_RUNTIME_DIR that is not ours (sudo keeps the invoking user's)
    /// is passed over, and a planted `launchbench-<uid>` in TMPDIR is refused.
    @Test func theDefaultFolderIsOursAlone() throws {
        try #require(geteuid() == 0, "needs root to give a folder to nobody")
        let runtime = folder.appendingPathComponent("runtime")
        let temporary = folder.appendingPathComponent("tmp")
        for url in [runtime, temporary] {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        #expect(chown(runtime.path, 65534, 65534) == 0)
        let environment = ["XDG_RUNTIME_DIR": runtime.path, "TMPDIR": temporary.path]
        let locks = try DeviceLock.defaultFolder(environment: environment)
        #expect(locks.path == temporary.path + "/launchbench-\(geteuid())/locks")

        let planted = temporary.appendingPathComponent("launchbench-\(geteuid())")
        #expect(chown(planted.path, 65534, 65534) == 0)
        #expect(throws: LaunchBenchError.self) { try DeviceLock.defaultFolder(environment: environment) }
    }
}

/// Issue 44: a lock file is never written or truncated through a link, and a shared lock folder must be sticky.
extension DeviceLockTests {
    private func lockURL(_ udid: String) -> URL {
        folder.appendingPathComponent(DeviceLock.fileName(udid: udid, scope: nil))
    }

    @Test func aPlantedSymlinkIsRefusedAndItsTargetLeftAlone() throws {
        let target = folder.appendingPathComponent("precious")
        try Data("keep me\n".utf8).write(to: target)
        #expect(symlink(target.path, lockURL("S1").path) == 0)
        let error = #expect(throws: LaunchBenchError.self) { try DeviceLock.acquire(udid: "S1", folder: folder) }
        guard case .refusedPath(let path, let reason, _)? = error else {
            Issue.record("expected a refusal, got \(String(describing: error))")
            return
        }
        #expect(path == lockURL("S1").path && reason.contains("symbolic link"), "\(reason)")
        #expect(try String(contentsOf: target, encoding: .utf8) == "keep me\n")
    }

    @Test func aHardLinkOrAFolderInPlaceOfTheLockIsRefused() throws {
        let target = folder.appendingPathComponent("other")
        try Data("keep me\n".utf8).write(to: target)
        #expect(link(target.path, lockURL("H1").path) == 0)
        #expect(throws: LaunchBenchError.self) { try DeviceLock.acquire(udid: "H1", folder: folder) }
        #expect(try String(contentsOf: target, encoding: .utf8) == "keep me\n")
        #expect(mkfifo(lockURL("F1").path, 0o600) == 0)
        #expect(throws: LaunchBenchError.self) { try DeviceLock.acquire(udid: "F1", folder: folder) }
    }

    @Test func anotherUsersLockFileIsHeldButNeverWritten() throws {
        try #require(geteuid() == 0, "needs root to give a file to nobody")
        let url = lockURL("O1")
        try Data("theirs\n".utf8).write(to: url)
        #expect(chown(url.path, 65534, 65534) == 0)
        guard case .success(let lock) = try DeviceLock.acquire(udid: "O1", folder: folder, command: "mine") else {
            Issue.record("an unheld lock file of another user was not taken")
            return
        }
        guard case .failure = try DeviceLock.acquire(udid: "O1", folder: folder) else {
            Issue.record("the held lock was taken twice")
            return
        }
        lock.release()
        #expect(try String(contentsOf: url, encoding: .utf8) == "theirs\n")
    }

    @Test func aSharedLockFolderMustBeStickyAndNotALink() throws {
        let shared = folder.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        #expect(chmod(shared.path, 0o777) == 0)
        let error = #expect(throws: LaunchBenchError.self) {
            try DeviceLock.defaultFolder(environment: ["LAUNCHBENCH_LOCK_DIR": shared.path])
        }
        #expect(error?.localizedDescription.contains("without the sticky bit") == true, "\(String(describing: error))")
        #expect(chmod(shared.path, 0o1777) == 0)
        #expect(try DeviceLock.defaultFolder(environment: ["LAUNCHBENCH_LOCK_DIR": shared.path]).path == shared.path)

        let linked = folder.appendingPathComponent("linked")
        #expect(symlink(shared.path, linked.path) == 0)
        #expect(throws: LaunchBenchError.self) {
            try DeviceLock.defaultFolder(environment: ["LAUNCHBENCH_LOCK_DIR": linked.path])
        }
    }
}
