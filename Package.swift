// swift-tools-version:6.1
import PackageDescription

// The folder tree is the architecture: one module owns the C boundary (MobileDevice over
// CIMobileDevice), a pure Swift core knows nothing of C (LaunchBench), the emulated iPhone
// speaks the usbmuxd protocol (DeviceEmulator), and the executable only parses, calls and prints.
let package = Package(
    name: "launchbench",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "launchbench", targets: ["launchbench"])
    ],
    // Exact versions: the ones the tests ran with. Package.pins lists every resolved package (these and
    // theirs); Scripts/check-pins fails the build when a resolution differs (Documentation/Design.md, "Pinned packages").
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        // TLS on the emulated device's service connections (DVTSecureSocketProxy), as a real iOS 14–16 device.
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", exact: "0.9.20"),
        // The marker printer an iOS app links, a package of its own so that it drags none of the above.
        .package(path: "LaunchProbe"),
    ],
    targets: [
        .systemLibrary(
            name: "CIMobileDevice",
            pkgConfig: "libimobiledevice-1.0",
            providers: [.apt(["libimobiledevice-dev", "libplist-dev"]), .brew(["libimobiledevice"])]
        ),
        .target(
            name: "LaunchBench",
            dependencies: [.product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
        .target(
            name: "MobileDevice",
            // LaunchEngines for the contract it implements (ForwardedDebugserverLaunching), which lives there.
            dependencies: ["CIMobileDevice", "LaunchBench", "LaunchEngines"]
        ),
        .target(
            name: "DeviceEmulator",
            dependencies: [
                "LaunchBench",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // Launch engines that run as other programs (pymobiledevice3 sidecars, xcrun devicectl): pure Foundation.
        .target(name: "LaunchEngines", dependencies: ["LaunchBench"]),
        .executableTarget(
            name: "launchbench",
            dependencies: [
                "LaunchBench", "MobileDevice", "DeviceEmulator", "LaunchEngines",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Shared by the test targets, without the emulator (the core's unit tests use it): the package's paths,
        // child processes, external tools, polling.
        .target(name: "TestSupport", dependencies: ["LaunchBench"], path: "Tests/Support", exclude: ["Emulator"]),
        // The process-wide emulated lab, private labs and a raw usbmuxd client: for the tests that start an emulator.
        .target(
            name: "EmulatorTestSupport", dependencies: ["DeviceEmulator", "LaunchBench", "TestSupport"],
            path: "Tests/Support/Emulator"),
        .testTarget(
            name: "LaunchBenchTests",
            dependencies: [
                "LaunchBench", "TestSupport",
                // The marker format's contract: LaunchProbe prints what the parser reads.
                .product(name: "LaunchProbe", package: "LaunchProbe"),
                // Crafting hostile .ipa archives in memory (BoundedArchiveReaderTests).
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]),
        // The executable's own layer in-process: option parsing, validate() messages, the exit-code table.
        .testTarget(
            name: "launchbenchTests",
            dependencies: [
                "launchbench", "LaunchBench", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(name: "LaunchProbeTests", dependencies: [.product(name: "LaunchProbe", package: "LaunchProbe")]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "LaunchBench", "MobileDevice", "DeviceEmulator", "LaunchEngines", "TestSupport", "EmulatorTestSupport",
            ]),
        .testTarget(
            name: "LaunchEnginesTests", dependencies: ["LaunchEngines", "LaunchBench", "TestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "DeviceEmulatorTests",
            dependencies: [
                "DeviceEmulator", "LaunchBench", "TestSupport", "EmulatorTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                // EmbeddedChannel and ByteToMessageDecoderVerifier: the NIO handlers tested without sockets.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "MobileDeviceTests",
            dependencies: [
                "MobileDevice", "DeviceEmulator", "LaunchBench", "TestSupport", "EmulatorTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The unit lane (Scripts/test --unit, LAUNCHBENCH_UNIT=1, in a scratch folder of its own): the core, its tests and
// the test support without the emulator, nothing else, so that neither DeviceEmulator nor NIO and BoringSSL are
// built. The dependencies stay declared, so the packages resolve (and Scripts/check-pins checks) as in full.
if Context.environment["LAUNCHBENCH_UNIT"] == "1" {
    let unit: Set = ["LaunchBench", "TestSupport", "LaunchBenchTests", "LaunchProbeTests"]
    package.targets.removeAll { !unit.contains($0.name) }
    package.products = []
}
