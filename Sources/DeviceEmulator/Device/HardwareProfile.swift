import Foundation

/// The hardware facts lockdown reports for a model: board, SoC, architecture, a retail model number.
struct HardwareProfile: Sendable {
    var hardwareModel: String
    var chipID: Int
    var cpuArchitecture: String
    var modelNumber: String

    /// The profile of a `ProductType`; unknown identifiers get a plausible arm64e profile.
    static func of(_ productType: String) -> HardwareProfile {
        if let known = table[productType] {
            return HardwareProfile(
                hardwareModel: known.0, chipID: known.1, cpuArchitecture: architecture(of: productType),
                modelNumber: known.2)
        }
        return HardwareProfile(
            hardwareModel: "J000AP", chipID: 0x8030, cpuArchitecture: architecture(of: productType),
            modelNumber: "MZZZ2")
    }

    /// armv7s before the A7, arm64 up to the A11, arm64e from the A12 (iPhone11,x) on.
    static func architecture(of productType: String) -> String {
        let digits = productType.drop(while: { !$0.isNumber }).prefix(while: \.isNumber)
        guard let generation = Int(digits) else { return "arm64e" }
        switch generation {
        case ..<6: return "armv7s"
        case 6...10: return "arm64"
        default: return "arm64e"
        }
    }

    // ProductType: (HardwareModel, ChipID, ModelNumber) as real devices report them.
    private static let table: [String: (String, Int, String)] = [
        "iPhone6,1": ("N51AP", 0x8960, "ME433"), "iPhone7,2": ("N61AP", 0x7000, "MG4P2"),
        "iPhone8,1": ("N71AP", 0x8000, "MKQJ2"), "iPhone8,4": ("N69AP", 0x8003, "MLLN2"),
        "iPhone9,1": ("D10AP", 0x8010, "MN8G2"), "iPhone9,3": ("D101AP", 0x8010, "MN9C2"),
        "iPhone10,1": ("D20AP", 0x8015, "MQ6G2"), "iPhone10,3": ("D22AP", 0x8015, "MQA52"),
        "iPhone10,6": ("D221AP", 0x8015, "MQAC2"), "iPhone11,2": ("D321AP", 0x8020, "MT962"),
        "iPhone11,8": ("N841AP", 0x8020, "MRY42"), "iPhone12,1": ("N104AP", 0x8030, "MWLT2"),
        "iPhone12,3": ("D421AP", 0x8030, "MWC22"), "iPhone12,5": ("D431AP", 0x8030, "MWHD2"),
        "iPhone12,8": ("D79AP", 0x8030, "MX9R2"), "iPhone13,1": ("D52gAP", 0x8101, "MGDX3"),
        "iPhone13,2": ("D53gAP", 0x8101, "MGJ53"), "iPhone13,3": ("D53pAP", 0x8101, "MGLA3"),
        "iPhone13,4": ("D54pAP", 0x8101, "MGD93"), "iPhone14,2": ("D63AP", 0x8110, "MLTP3"),
        "iPhone14,5": ("D17AP", 0x8110, "MLPF3"), "iPhone14,7": ("D27AP", 0x8110, "MPUF3"),
        "iPhone15,2": ("D73AP", 0x8120, "MPXR3"), "iPhone15,4": ("D37AP", 0x8120, "MTP03"),
        "iPhone16,1": ("D83AP", 0x8130, "MTUV3"), "iPhone17,3": ("D47AP", 0x8140, "MYE73"),
    ]
}
