import Foundation

/// The app markers' line format, `[launchbench] mark=NAME t=MS` then `[launchbench] done`: written by
/// LaunchProbe in an app (which depends on nothing, so it spells the format itself), by the emulated
/// iPhone, and read by `LineClassifier`. `LaunchMarkerContractTests` holds the three to this definition.
package enum LaunchMarkerFormat {
    /// What every marker line starts with.
    package static let prefix: StaticString = "[launchbench] "
    /// The line that ends the app's markers.
    package static let doneLine = "\(prefix)done\n"

    /// `[launchbench] mark=main t=412.7`: milliseconds since process start, one decimal, `.` as separator.
    package static func markerLine(name: String, milliseconds: Double) -> String {
        "\(prefix)mark=\(name) t=\(String(format: "%.1f", milliseconds))\n"
    }
}
