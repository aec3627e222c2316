/// An iOS version, and what it means for measuring launches on it.
package struct OSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The major version (14 in 14.8.1).
    package var major: Int
    /// The minor version (8 in 14.8.1).
    var minor: Int
    /// The patch version (1 in 14.8.1), 0 when absent.
    package var patch: Int

    /// A version from its parts.
    package init(_ major: Int, _ minor: Int = 0, _ patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses `14`, `14.8` or `14.8.1`; `nil` for anything else.
    package init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.allSatisfy(\.isASCII), let value = Int(part), value >= 0 else { return nil }
            numbers.append(value)
        }
        while numbers.count < 3 { numbers.append(0) }
        self.init(numbers[0], numbers[1], numbers[2])
    }

    /// `14.8` or `14.8.1` (a zero patch is left out).
    package var description: String { patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)" }

    /// Compares major, then minor, then patch.
    package static func < (lhs: OSVersion, rhs: OSVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    /// How dyld on this version answers `DYLD_PRINT_STATISTICS`.
    package var dyldStatistics: DyldStatisticsSupport {
        switch major {
        case ..<13: return .always
        case 13...14: return .onlyWithOverride
        default: return .never
        }
    }

    /// Whether lockdown still offers the debugserver service that libimobiledevice launches through.
    package var offersDebugserver: Bool { major < 17 }
}

/// Whether a launch on a given iOS can print pre-main statistics.
package enum DyldStatisticsSupport: Sendable, Hashable {
    /// dyld2 (iOS ≤ 12): the summary block is printed on every launch.
    case always
    /// dyld3 closures (iOS 13–14): printed only when an override variable such as
    /// `DYLD_INSERT_LIBRARIES` forces the dyld2 path.
    case onlyWithOverride
    /// dyld4 (iOS 15+): never printed; timing comes from the app's own markers.
    case never

    /// Whether dyld prints its statistics, given whether an override variable is set.
    package func prints(withOverride override: Bool) -> Bool {
        self == .always || (self == .onlyWithOverride && override)
    }

    /// The environment variables that force dyld3 back onto the dyld2 path.
    package static let overrideVariables = [
        "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH", "DYLD_FRAMEWORK_PATH", "DYLD_IMAGE_SUFFIX",
    ]
}
