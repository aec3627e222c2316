import Foundation

extension AppBundle {
    /// Reads an `.app` folder or an `.ipa` (a zip holding exactly one `Payload/<Name>.app`).
    ///
    /// - Parameter url: the `.app` folder or the `.ipa` file.
    /// - Throws: `LaunchBenchError.fileNotFound` when nothing is at `url`, `LaunchBenchError.notAnApp`
    ///   when it is neither form, has no readable `Info.plist`, or lacks the bundle id or executable name.
    package init(contentsOf url: URL) throws {
        let url = url.standardizedFileURL
        let contents: AppBundleContents
        do {
            contents = try AppBundleContents.read(url)
        } catch .notFound {
            throw LaunchBenchError.fileNotFound(path: url.path, what: "App")
        } catch {
            throw LaunchBenchError.notAnApp(path: url.path, reason: error.reason)
        }
        let info = try InfoPlist(data: contents.infoPlist, appPath: contents.infoPlistLocation)
        self.init(
            url: url, packaging: contents.packaging, bundleID: info.bundleID, shortVersion: info.shortVersion,
            build: info.build, executable: info.executable, bundleName: contents.bundleName,
            frameworks: contents.frameworks)
    }
}

/// The `Info.plist` keys the benchmark needs; XML and binary plists alike.
struct InfoPlist {
    var bundleID: String
    var shortVersion: String
    var build: String
    var executable: String

    init(data: Data, appPath: String) throws {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw LaunchBenchError.notAnApp(path: appPath, reason: "its Info.plist is not a property list")
        }
        guard let dictionary = object as? [String: Any] else {
            throw LaunchBenchError.notAnApp(path: appPath, reason: "its Info.plist is not a dictionary")
        }
        func text(_ key: String) -> String? {
            guard let value = dictionary[key] as? String, !value.isEmpty else { return nil }
            return value
        }
        guard let bundleID = text("CFBundleIdentifier") else {
            throw LaunchBenchError.notAnApp(path: appPath, reason: "its Info.plist has no CFBundleIdentifier")
        }
        guard let executable = text("CFBundleExecutable") else {
            throw LaunchBenchError.notAnApp(path: appPath, reason: "its Info.plist has no CFBundleExecutable")
        }
        self.bundleID = bundleID
        self.executable = executable
        shortVersion = text("CFBundleShortVersionString") ?? ""
        build = text("CFBundleVersion") ?? ""
    }
}

/// Where the app sits inside an `.ipa`'s entry list.
struct IPALayout {
    /// `X.app` names directly under `Payload/`, sorted.
    var appNames: [String]
    private var entryPaths: [String]

    init(entryPaths: [String]) {
        self.entryPaths = entryPaths
        var names = Set<String>()
        for path in entryPaths {
            let parts = path.split(separator: "/", omittingEmptySubsequences: true)
            if parts.count >= 2, parts[0] == "Payload", parts[1].hasSuffix(".app") { names.insert(String(parts[1])) }
        }
        appNames = names.sorted()
    }

    /// First-level entries of `Payload/<app>/Frameworks/`, sorted.
    func frameworks(in app: String) -> [String] {
        let prefix = "Payload/\(app)/Frameworks/"
        var names = Set<String>()
        for path in entryPaths where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count)
            guard let first = rest.split(separator: "/").first, !first.hasPrefix(".") else { continue }
            names.insert(String(first))
        }
        return names.sorted()
    }
}
