import LaunchBench

extension EmulatedDeviceSpec {
    /// Models for a lab of mixed devices, each with the iOS range it really ran (major versions).
    static let mixedModels: [(productType: String, firstMajor: Int, lastMajor: Int)] = [
        ("iPhone12,1", 13, 18),  // iPhone 11
        ("iPhone13,2", 14, 18),  // iPhone 12
        ("iPhone11,8", 12, 18),  // iPhone XR
        ("iPhone10,3", 11, 16),  // iPhone X
        ("iPhone14,5", 15, 18),  // iPhone 13
        ("iPhone9,1", 10, 15),  // iPhone 7
        ("iPhone15,4", 17, 18),  // iPhone 15
        ("iPhone8,1", 9, 15),  // iPhone 6s
        ("iPhone6,1", 7, 12),  // iPhone 5s
    ]

    /// `count` devices on `osVersion`: all `productType` when given, otherwise a rotation of models that
    /// really ran that iOS version (iPhone 11, 12, XR, X… on 14.x), falling back to the iPhone 11.
    /// UDIDs and names are numbered from 1 and stable between runs.
    package static func lab(count: Int, osVersion: String, productType: String? = nil) -> [EmulatedDeviceSpec] {
        let major = OSVersion(osVersion)?.major ?? 14
        let fitting = mixedModels.filter { ($0.firstMajor...$0.lastMajor).contains(major) }.map(\.productType)
        let rotation = productType.map { [$0] } ?? (fitting.isEmpty ? ["iPhone12,1"] : fitting)
        return (0..<count).map { index in
            .numbered(index + 1, productType: rotation[index % rotation.count], osVersion: osVersion)
        }
    }
}
