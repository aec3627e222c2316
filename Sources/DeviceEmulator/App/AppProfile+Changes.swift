/// A change of the emulated app from a given launch or build on: what a dependency update does to a
/// real app (a new embedded framework, a slow `+load`), so a baseline and a slower build can be made.
///
/// ```json
/// "changes": [{ "fromBuild": "35", "addBundleImages": ["Frameworks/Analytics.framework/Analytics"],
///               "dylibLoadingMs": 70, "initializers": [{ "image": "Analytics", "ms": 40 }] }]
/// ```
/// The times are added to the nominal figures of every model and launch kind (before noise); the
/// after-main markers move by the added pre-main time, so the gaps after `main` stay as they were.
package struct ProfileChange: Codable, Sendable, Hashable {
    /// From this launch number on (counted per app and device from 1, as `LaunchSelector.launches`).
    package var fromLaunch: Int?
    /// From this app build on: the bundle's `CFBundleVersion`, compared numerically part by part
    /// (`9` < `10` < `10.1`). With both `fromLaunch` and `fromBuild`, both must hold.
    package var fromBuild: String?
    /// Images inside the bundle dyld loads in addition (relative to the `.app` folder).
    package var addBundleImages: [String]?
    /// Emulated ms added to each pre-main phase.
    package var dylibLoadingMs: Double?
    package var rebaseBindingMs: Double?
    package var objcSetupMs: Double?
    /// Initializers added: each one's ms is added to the initializer phase and dyld lists the image.
    package var initializers: [InitializerFigure]?

    /// Whether the change applies to launch `launchNumber` of build `build`.
    package func applies(launchNumber: Int, build: String?) -> Bool {
        if let fromLaunch, launchNumber < fromLaunch { return false }
        if let fromBuild {
            guard let build, Self.compare(build, fromBuild) >= 0 else { return false }
        }
        return true
    }

    /// Adds the change to nominal timings whose markers are filled (`withDerivedMarkers`).
    func apply(to t: LaunchTimings) -> LaunchTimings {
        var out = t
        let added = initializers ?? []
        out.dylibLoadingMs += dylibLoadingMs ?? 0
        out.rebaseBindingMs += rebaseBindingMs ?? 0
        out.objcSetupMs += objcSetupMs ?? 0
        out.initializerMs += added.reduce(0) { $0 + $1.ms }
        out.slowestInitializers = (t.slowestInitializers ?? []) + added
        let shift = out.preMainMs - t.preMainMs
        out.mainMs = t.mainMs.map { $0 + shift }
        out.didFinishLaunchingMs = t.didFinishLaunchingMs.map { $0 + shift }
        out.firstFrameMs = t.firstFrameMs.map { $0 + shift }
        return out
    }

    /// Negative, 0 or positive as build `a` is older than, the same as or newer than `b`.
    static func compare(_ a: String, _ b: String) -> Int {
        let x = a.split(separator: ".").map { Int($0) ?? 0 }
        let y = b.split(separator: ".").map { Int($0) ?? 0 }
        for i in 0..<max(x.count, y.count) {
            let l = i < x.count ? x[i] : 0
            let r = i < y.count ? y[i] : 0
            if l != r { return l < r ? -1 : 1 }
        }
        return 0
    }

    func validate(index: Int) throws {
        let name = "\(AppProfile.fileName): changes[\(index)]"
        if let fromLaunch, fromLaunch < 1 {
            throw AppProfileError("\(name).fromLaunch is \(fromLaunch); launches count from 1")
        }
        if fromLaunch == nil && fromBuild == nil {
            throw AppProfileError(
                "\(name) needs fromLaunch or fromBuild (from which launch or build the change applies)")
        }
        let times =
            [("dylibLoadingMs", dylibLoadingMs), ("rebaseBindingMs", rebaseBindingMs), ("objcSetupMs", objcSetupMs)]
            + (initializers ?? []).map { ("initializers.\($0.image)", $0.ms) }
        for case (let field, let value?) in times {
            if let problem = AppProfile.timeProblem(value) { throw AppProfileError("\(name).\(field) is \(problem)") }
        }
    }
}

extension AppProfile {
    /// The changes that apply to launch `launchNumber` of build `build`, in file order.
    package func activeChanges(launchNumber: Int, build: String?) -> [ProfileChange] {
        (changes ?? []).filter { $0.applies(launchNumber: launchNumber, build: build) }
    }
}
