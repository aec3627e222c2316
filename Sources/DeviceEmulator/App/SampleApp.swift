import Foundation
import LaunchBench

/// The sample app the emulated lab measures by default (`launchbench demo`, the tests, the benchmarks): the
/// bytes of `Fixtures/SampleApp/Sample.app`, kept here so an installed launchbench writes the very app a
/// checkout measures (`SampleAppTests` proves them byte-equal). The executable and frameworks are real arm64
/// Mach-O files with static initializers (`Scripts/make-sample-binaries`, kept in `SampleAppBinaries.swift`);
/// the emulator never runs them, it reads their initializers, and `launchbench-emulator.json` says how long
/// the app takes.
package enum SampleApp {
    /// The app's `CFBundleIdentifier`.
    package static let bundleID = "com.example.launchbench.sample"

    /// An embedded framework's Info.plist, as Xcode writes it.
    static func frameworkInfoPlist(_ name: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        	<key>CFBundleExecutable</key>
        	<string>\(name)</string>
        	<key>CFBundleIdentifier</key>
        	<string>com.example.launchbench.\(name.lowercased())</string>
        	<key>CFBundlePackageType</key>
        	<string>FMWK</string>
        	<key>CFBundleVersion</key>
        	<string>1</string>
        </dict>
        </plist>

        """
    }

    /// The build `Fixtures/SampleApp/Sample.app` is (its `CFBundleVersion`).
    package static let fixtureBuild = "34"

    /// The app's Info.plist, as Xcode writes it, with `CFBundleVersion` `build`.
    static func infoPlist(build: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        	<key>CFBundleDevelopmentRegion</key>
        	<string>en</string>
        	<key>CFBundleDisplayName</key>
        	<string>Sample</string>
        	<key>CFBundleExecutable</key>
        	<string>Sample</string>
        	<key>CFBundleIdentifier</key>
        	<string>com.example.launchbench.sample</string>
        	<key>CFBundleInfoDictionaryVersion</key>
        	<string>6.0</string>
        	<key>CFBundleName</key>
        	<string>Sample</string>
        	<key>CFBundlePackageType</key>
        	<string>APPL</string>
        	<key>CFBundleShortVersionString</key>
        	<string>1.2</string>
        	<key>CFBundleVersion</key>
        	<string>\(build)</string>
        	<key>LSRequiresIPhoneOS</key>
        	<true/>
        	<key>MinimumOSVersion</key>
        	<string>9.0</string>
        	<key>UIDeviceFamily</key>
        	<array>
        		<integer>1</integer>
        	</array>
        </dict>
        </plist>

        """
    }

    /// Every text file of `Sample.app`: its path inside the bundle and its text (UTF-8, ending in a line break);
    /// the binaries are `binaries`.
    package static let files: [(path: String, text: String)] = [
        ("Frameworks/SampleKit.framework/Info.plist", frameworkInfoPlist("SampleKit")),
        ("Frameworks/SampleNetworking.framework/Info.plist", frameworkInfoPlist("SampleNetworking")),
        ("Info.plist", infoPlist(build: fixtureBuild)),
        (
            "launchbench-emulator.json",
            """
            {
              "schemaVersion": 1,
              "noise": 0.05,
              "exitAfterDone": true,
              "developmentSigned": true,
              "models": {
                "iPhone5,2": {
                  "cold": {
                    "dylibLoadingMs": 610, "rebaseBindingMs": 95, "objcSetupMs": 60, "initializerMs": 155,
                    "slowestInitializers": [
                      { "image": "libSystem.B.dylib", "ms": 14 },
                      { "image": "SampleNetworking", "ms": 48 },
                      { "image": "Sample", "ms": 31 }
                    ],
                    "mainMs": 945, "didFinishLaunchingMs": 1330, "firstFrameMs": 1520
                  }
                },
                "A7": {
                  "cold": {
                    "dylibLoadingMs": 168, "rebaseBindingMs": 27, "objcSetupMs": 19, "initializerMs": 46,
                    "slowestInitializers": [
                      { "image": "libSystem.B.dylib", "ms": 4.1 },
                      { "image": "SampleNetworking", "ms": 14.5 },
                      { "image": "Sample", "ms": 9.2 }
                    ],
                    "mainMs": 270, "didFinishLaunchingMs": 490, "firstFrameMs": 610
                  },
                  "warm": {
                    "dylibLoadingMs": 66, "rebaseBindingMs": 16, "objcSetupMs": 13, "initializerMs": 27,
                    "slowestInitializers": [
                      { "image": "libSystem.B.dylib", "ms": 2.6 },
                      { "image": "SampleNetworking", "ms": 8.7 }
                    ],
                    "mainMs": 128, "didFinishLaunchingMs": 280, "firstFrameMs": 360
                  }
                },
                "default": {
                  "cold": {
                    "dylibLoadingMs": 74, "rebaseBindingMs": 12, "objcSetupMs": 9, "initializerMs": 21,
                    "slowestInitializers": [
                      { "image": "libSystem.B.dylib", "ms": 1.9 },
                      { "image": "SampleNetworking", "ms": 6.5 },
                      { "image": "Sample", "ms": 4.1 }
                    ],
                    "mainMs": 120, "didFinishLaunchingMs": 215, "firstFrameMs": 265
                  }
                }
              },
              "faults": {},
              "install": { "delayMs": 0 },
              "changes": [
                {
                  "fromBuild": "35",
                  "addBundleImages": ["Frameworks/Analytics.framework/Analytics"],
                  "dylibLoadingMs": 70,
                  "initializers": [{ "image": "Analytics", "ms": 40 }]
                },
                {
                  "fromBuild": "36",
                  "initializers": [
                    { "image": "SampleNetworking", "function": "networking_start_reachability", "ms": 18 }
                  ]
                }
              ]
            }

            """
        ),
    ]

    /// Writes `Sample.app` into `folder` (created when missing) and returns the app's URL.
    /// - Parameters:
    ///   - folder: where `Sample.app` goes.
    ///   - build: the app's `CFBundleVersion`; the emulated app's `changes` apply from a build on, so `35`
    ///     writes a slower build of the same app (`launchbench demo --build 35`). Digits and dots.
    /// - Throws: `LaunchBenchError.cannotWrite`.
    package static func write(into folder: URL, build: String = fixtureBuild) throws -> URL {
        let app = folder.appendingPathComponent("Sample.app", isDirectory: true)
        guard !build.isEmpty, build.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else {
            throw LaunchBenchError.cannotWrite(
                path: app.path, reason: "'\(build)' is not a build number (digits and dots, e.g. 35)")
        }
        do {
            for file in files {
                let url = app.appendingPathComponent(file.path)
                let text = file.path == "Info.plist" ? infoPlist(build: build) : file.text
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url)
            }
            for binary in binaries {
                let url = app.appendingPathComponent(binary.path)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try bytes(of: binary).write(to: url)
            }
        } catch {
            throw LaunchBenchError.cannotWrite(
                path: app.path, reason: "the sample app cannot be written (\(error.localizedDescription))")
        }
        return app
    }

    /// A binary's bytes: zeros with its runs laid in.
    static func bytes(of binary: (path: String, size: Int, runs: [(offset: Int, base64: [String])])) -> Data {
        var data = Data(count: binary.size)
        for run in binary.runs {
            guard let bytes = Data(base64Encoded: run.base64.joined()) else { continue }
            data.replaceSubrange(run.offset..<(run.offset + bytes.count), with: bytes)
        }
        return data
    }
}
