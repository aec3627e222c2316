// swift-tools-version:5.9
import PackageDescription

// LaunchProbe on its own: the one file an iOS app links to print launchbench's markers, with no
// dependency. It is a package of its own so that an app adding it pulls nothing of launchbench's
// (SwiftNIO, BoringSSL, ArgumentParser, a pkg-config system library); launchbench's tests use it
// through a path dependency. Tools 5.9: any Xcode since 15 opens it.
let package = Package(
    name: "LaunchProbe",
    platforms: [.iOS(.v12), .macOS(.v10_15), .tvOS(.v12)],
    products: [.library(name: "LaunchProbe", targets: ["LaunchProbe"])],
    targets: [.target(name: "LaunchProbe")]
)
