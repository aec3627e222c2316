import Foundation
import LaunchBench
import Testing

@testable import LaunchEngines

@Suite struct LocatorTests {
    /// A folder with an executable `name` inside `subpath`.
    static func folder(withExecutable subpath: String) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("launchbench-locator-\(UUID())")
        let file = root.appendingPathComponent(subpath)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "#!/bin/sh\n".write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
        return root
    }

    @Test func explicitVariableWinsAndANonExecutableOneMeansNotInstalled() throws {
        let root = try Self.folder(withExecutable: "bin/pmd3")
        defer { try? FileManager.default.removeItem(at: root) }
        let path = root.appendingPathComponent("bin/pmd3").path
        #expect(
            Pymobiledevice3Locator.find(
                environment: ["LAUNCHBENCH_PYMOBILEDEVICE3": path], currentDirectory: "/",
                executablePath: nil) == path)
        #expect(
            Pymobiledevice3Locator.find(
                environment: [
                    "LAUNCHBENCH_PYMOBILEDEVICE3": "/nonexistent/pmd3", "PATH": root.appendingPathComponent("bin").path,
                ],
                currentDirectory: "/", executablePath: nil) == nil)
    }

    @Test func projectVirtualEnvironmentIsFoundFromTheWorkingDirectoryOrAboveTheExecutable() throws {
        let root = try Self.folder(withExecutable: ".venv-pmd3/bin/pymobiledevice3")
        defer { try? FileManager.default.removeItem(at: root) }
        let expected = root.appendingPathComponent(".venv-pmd3/bin/pymobiledevice3").path
        #expect(
            Pymobiledevice3Locator.find(environment: [:], currentDirectory: root.path, executablePath: nil) == expected)
        let executable = root.appendingPathComponent(".build/debug/launchbench").path
        #expect(
            Pymobiledevice3Locator.find(environment: [:], currentDirectory: "/", executablePath: executable) == expected
        )
    }

    /// A `.venv-pmd3` in a shared working directory (`/tmp` on a CI host) could be another user's: it is
    /// taken only when it, its `bin` and the program are ours (or root's) and writable by no one else.
    @Test func aVirtualEnvironmentOthersCouldWriteIsNotRun() throws {
        let root = try Self.folder(withExecutable: ".venv-pmd3/bin/pymobiledevice3")
        defer { try? FileManager.default.removeItem(at: root) }
        let venv = root.appendingPathComponent(".venv-pmd3").path
        func found() -> String? {
            Pymobiledevice3Locator.find(environment: [:], currentDirectory: root.path, executablePath: nil)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: venv)
        #expect(found() != nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: venv)
        #expect(found() == nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: venv)
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o777], ofItemAtPath: root.appendingPathComponent(".venv-pmd3/bin/pymobiledevice3").path
        )
        #expect(found() == nil)
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o755], ofItemAtPath: root.appendingPathComponent(".venv-pmd3/bin/pymobiledevice3").path
        )
        // A searched folder that anyone can write, without the sticky bit: anyone could swap the venv.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: root.path)
        #expect(found() == nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: root.path)
        #expect(found() != nil)
        // Another user's venv (tests run as root in CI; elsewhere chown is refused and this part is moot).
        if geteuid() == 0 {
            #expect(chown(venv, 65534, 65534) == 0)
            #expect(found() == nil)
        }
    }

    @Test func pathIsTheLastResort() throws {
        let root = try Self.folder(withExecutable: "tools/pymobiledevice3")
        defer { try? FileManager.default.removeItem(at: root) }
        let tools = root.appendingPathComponent("tools").path
        #expect(
            Pymobiledevice3Locator.find(
                environment: ["PATH": "/nonexistent:\(tools)"], currentDirectory: "/",
                executablePath: nil) == tools + "/pymobiledevice3")
        #expect(
            Pymobiledevice3Locator.find(
                environment: ["PATH": "/nonexistent"], currentDirectory: "/",
                executablePath: nil) == nil)
    }

    @Test func xcodeVersionIsReadFromXcodebuild() {
        #expect(EngineHost.parseXcodeVersion("Xcode 16.2\nBuild version 16C5032a\n") == OSVersion(16, 2))
        #expect(EngineHost.parseXcodeVersion("xcode-select: error: tool 'xcodebuild' requires Xcode") == nil)
    }

    @Test func tunnelArgumentsFollowTheIOSVersion() {
        func device(_ ios: String) -> DeviceInfo {
            DeviceInfo(udid: "U", name: "n", productType: "iPhone15,4", osVersion: ios, buildVersion: "b")
        }
        func sidecar(_ ios: String, tunneld: String? = nil) -> [String] {
            Pymobiledevice3Setup(executable: "pymobiledevice3", tunneld: tunneld).sidecarArguments(for: device(ios))
        }
        #expect(sidecar("16.7") == [])
        #expect(sidecar("17.3.1") == ["--tunnel", "U"])
        #expect(sidecar("17.4") == ["--userspace"])
        #expect(sidecar("18.2") == ["--userspace"])
        // A tunneld of its own (parallel labs): only 17.0–17.3.1 use it, in pymobiledevice3's --tunnel syntax.
        #expect(sidecar("17.2", tunneld: "50123") == ["--tunnel", "U:50123"])
        #expect(sidecar("17.0", tunneld: "127.0.0.1:50123") == ["--tunnel", "U:50123"])
        #expect(sidecar("17.3.1", tunneld: "lab.local:49151") == ["--tunnel", "U@lab.local:49151"])
        #expect(sidecar("17.5", tunneld: "50123") == ["--userspace"])
    }

    /// The kdebug helper reaches a device the way the sidecar does: one transport rule for both.
    @Test func theKdebugHelperFollowsTheSameTransport() {
        func device(_ ios: String) -> DeviceInfo {
            DeviceInfo(udid: "U", name: "n", productType: "iPhone15,4", osVersion: ios, buildVersion: "b")
        }
        let setup = Pymobiledevice3Setup(executable: "pymobiledevice3", tunneld: "50123")
        #expect(setup.helperArguments(for: device("16.7")) == [])
        #expect(
            setup.helperArguments(for: device("17.3.1")) == ["--transport", "tunneld", "--tunneld", "127.0.0.1:50123"])
        #expect(setup.helperArguments(for: device("17.4")) == ["--transport", "userspace"])
        #expect(
            Pymobiledevice3Setup(executable: "p").helperArguments(for: device("17.0")) == [
                "--transport", "tunneld", "--tunneld", "127.0.0.1:49151",
            ])
        #expect(
            Pymobiledevice3Setup(executable: "p", tunneld: "lab.local:49151").helperArguments(for: device("17.2")) == [
                "--transport", "tunneld", "--tunneld", "lab.local:49151",
            ])
    }

    /// The `devices` table names the tunnel only for a device pymobiledevice3 launches on.
    @Test func theDevicesTableNamesTheTransportOfPymobiledevice3Devices() {
        func device(_ ios: String) -> DeviceInfo {
            DeviceInfo(udid: "U", name: "n", productType: "iPhone15,4", osVersion: ios, buildVersion: "b")
        }
        let host = EngineHost(isMacOS: false, pymobiledevice3: "/venv/bin/pymobiledevice3")
        let setup = EngineSetup(selection: .auto, host: host, usbmuxd: nil)
        func transport(_ ios: String) -> String? {
            setup.transport(for: device(ios), decision: setup.router.decision(for: device(ios)))
        }
        #expect(transport("17.5") == "userspace tunnel")
        #expect(transport("17.2") == "tunneld")
        #expect(transport("16.7") == nil)  // libimobiledevice
        let forced = EngineSetup(selection: .forced(.pymobiledevice3), host: host, usbmuxd: nil)
        #expect(forced.transport(for: device("16.7"), decision: forced.router.decision(for: device("16.7"))) == nil)
        let bare = EngineSetup(selection: .auto, host: EngineHost(isMacOS: false), usbmuxd: nil)
        #expect(bare.transport(for: device("17.5"), decision: bare.router.decision(for: device("17.5"))) == nil)
    }

    /// An address pymobiledevice3 cannot take is said once, by the one setup, and its helpers get none.
    @Test func anUnusableUSBMuxAddressIsOneProblemForEveryHelper() {
        let setup = Pymobiledevice3Setup(executable: "p", usbmuxd: .tcp(host: "::1", port: 27015))
        #expect(setup.usbmuxProblem?.contains("IPv6") == true)
        #expect(setup.environment.isEmpty)
        let fine = Pymobiledevice3Setup(executable: "p", usbmuxd: .unix(path: "/tmp/lab.sock"))
        #expect(fine.usbmuxProblem == nil)
        #expect(fine.environment["PYMOBILEDEVICE3_USBMUX"] == "/tmp/lab.sock")
    }
}

/// How an installed launchbench finds pymobiledevice3, and which searched venvs it refuses (issues 43 and 44).
@Suite struct LocatorTrustTests {
    /// `ROOT/clone/.venv-pmd3` with `pyvenv.cfg`, `bin/pymobiledevice3` (its `#!` line naming `python`, else
    /// `/bin/sh`) and `lib/python3.11/site-packages/`; returns ROOT and the program.
    static func clone(python: String? = nil) throws -> (root: URL, program: String) {
        let root = try LocatorTests.folder(withExecutable: "clone/.venv-pmd3/bin/pymobiledevice3")
        let venv = root.appendingPathComponent("clone/.venv-pmd3")
        let program = venv.appendingPathComponent("bin/pymobiledevice3")
        try "#!\(python ?? "/bin/sh")\n".write(to: program, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
        try "home = /usr/bin\n".write(to: venv.appendingPathComponent("pyvenv.cfg"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(
            at: venv.appendingPathComponent("lib/python3.11/site-packages"), withIntermediateDirectories: true)
        for folder in ["", "clone", "clone/.venv-pmd3/lib", "clone/.venv-pmd3/lib/python3.11"] {
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o755], ofItemAtPath: root.appendingPathComponent(folder).path)
        }
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o755],
            ofItemAtPath: venv.appendingPathComponent("lib/python3.11/site-packages").path)
        return (root, program.path)
    }

    static func chmod(_ mode: Int, _ path: String) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    /// Scripts/install writes PREFIX/lib/launchbench/pymobiledevice3.path beside PREFIX/bin/launchbench: the
    /// installed binary, far from its clone, finds the venv through it from any folder.
    @Test func anInstalledBinaryFindsTheVenvScriptsInstallRecorded() throws {
        let (root, program) = try Self.clone()
        defer { try? FileManager.default.removeItem(at: root) }
        let prefix = root.appendingPathComponent("prefix")
        try FileManager.default.createDirectory(
            at: prefix.appendingPathComponent("lib/launchbench"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: prefix.appendingPathComponent("bin"), withIntermediateDirectories: true)
        let executable = prefix.appendingPathComponent("bin/launchbench").path
        let record = prefix.appendingPathComponent("lib/launchbench/pymobiledevice3.path")
        try (program + "\n").write(to: record, atomically: true, encoding: .utf8)
        try Self.chmod(0o644, record.path)
        let search = Pymobiledevice3Locator.search(environment: [:], currentDirectory: "/", executablePath: executable)
        #expect(search.found == program, "\(search)")
        // A record others could rewrite is passed over, and said so.
        try Self.chmod(0o666, record.path)
        let refused = Pymobiledevice3Locator.search(environment: [:], currentDirectory: "/", executablePath: executable)
        #expect(refused.found == nil)
        #expect(refused.summary.contains("pymobiledevice3.path is writable by others"), "\(refused.summary)")
    }

    /// Python runs the venv's site-packages and `.pth` files too: one that others can write passes the whole
    /// venv over, named with why; the explicit variable still wins.
    @Test func aVenvWhoseSitePackagesOthersCanWriteIsPassedOverWithWhy() throws {
        let (root, program) = try Self.clone()
        defer { try? FileManager.default.removeItem(at: root) }
        let clone = root.appendingPathComponent("clone").path
        let site = clone + "/.venv-pmd3/lib/python3.11/site-packages"
        func search() -> Pymobiledevice3Search {
            Pymobiledevice3Locator.search(environment: [:], currentDirectory: clone, executablePath: nil)
        }
        #expect(search().found == program)
        let planted = site + "/planted.pth"
        try "import os\n".write(toFile: planted, atomically: true, encoding: .utf8)
        try Self.chmod(0o666, planted)
        let refused = search()
        #expect(refused.found == nil)
        #expect(refused.summary.contains("planted.pth is writable by others"), "\(refused.summary)")
        try Self.chmod(0o644, planted)
        #expect(search().found == program)
        // A group-writable site-packages is passed over too, and named.
        try Self.chmod(0o775, site)
        #expect(search().summary.contains("site-packages is writable by its group"), "\(search().summary)")
        #expect(search().found == nil)
        // What the user names is run as it is.
        let explicit = Pymobiledevice3Locator.search(
            environment: [Pymobiledevice3Locator.environmentVariable: program], currentDirectory: clone,
            executablePath: nil)
        #expect(explicit.found == program)
    }

    /// The interpreter the program's `#!` line names, and a folder a `.pth` file adds, are checked like the venv.
    @Test func theVenvsPythonAndThePathsItsPthFilesAddAreChecked() throws {
        let outside = try LocatorTests.folder(withExecutable: "python/python3")
        defer { try? FileManager.default.removeItem(at: outside) }
        let python = outside.appendingPathComponent("python/python3").path
        for folder in ["", "python"] { try Self.chmod(0o755, outside.appendingPathComponent(folder).path) }
        let (root, program) = try Self.clone(python: python)
        defer { try? FileManager.default.removeItem(at: root) }
        let clone = root.appendingPathComponent("clone").path
        func search() -> Pymobiledevice3Search {
            Pymobiledevice3Locator.search(environment: [:], currentDirectory: clone, executablePath: nil)
        }
        #expect(search().found == program, "\(search())")
        try Self.chmod(0o777, python)
        #expect(search().found == nil)
        #expect(search().summary.contains("its Python \(python)"), "\(search().summary)")
        try Self.chmod(0o755, python)
        let added = outside.appendingPathComponent("added")
        try FileManager.default.createDirectory(at: added, withIntermediateDirectories: true)
        try Self.chmod(0o777, added.path)
        let pth = clone + "/.venv-pmd3/lib/python3.11/site-packages/extra.pth"
        try (added.path + "\n").write(toFile: pth, atomically: true, encoding: .utf8)
        try Self.chmod(0o644, pth)
        #expect(search().found == nil)
        #expect(search().summary.contains("extra.pth adds"), "\(search().summary)")
        try Self.chmod(0o755, added.path)
        #expect(search().found == program)
    }

    /// When none is found, the advice names where launchbench looked, the variable, and installs that work on
    /// Debian 12 / Ubuntu 23.04+ (no `pip install` into the system Python) and macOS.
    @Test func theAdviceNamesWhatWasSearchedTheVariableAndAWorkingInstall() throws {
        let search = Pymobiledevice3Locator.search(
            environment: ["PATH": "/nonexistent"], currentDirectory: "/nonexistent-cwd",
            executablePath: "/opt/lb/bin/launchbench")
        #expect(search.found == nil)
        let host = EngineHost(isMacOS: false, pymobiledevice3Search: search.summary)
        let device = DeviceInfo(udid: "U", name: "n", productType: "iPhone16,1", osVersion: "17.5", buildVersion: "b")
        let advice = EngineChoice.decide(for: device, selection: .auto, host: host).explanation
        for expected in [
            "LAUNCHBENCH_PYMOBILEDEVICE3 (unset)", ".venv-pmd3/ in /nonexistent-cwd",
            "/opt/lb/lib/launchbench/pymobiledevice3.path",
            "PATH", "pipx install pymobiledevice3==11.45.0", "python3 -m venv",
            "export LAUNCHBENCH_PYMOBILEDEVICE3=",
        ] {
            #expect(advice.contains(expected), "\(expected) in \(advice)")
        }
        #expect(!advice.contains("python3 -m pip install"))
    }
}
