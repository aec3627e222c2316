/// Keeps one copy of the texts that repeat from launch to launch (run id, device, app, the bundle's image
/// list, initializer names), so that the readers that keep every sample (`loadSamples`: merge, a mixed-app
/// file's gate, the run's own gate when it rereads the folder) hold each text once instead of once per launch.
///
/// A decoded `String` longer than 15 UTF-8 bytes owns a heap buffer, and a decoded array owns one too: a
/// launch of the sample app carried about 900 bytes of such copies. Swapping each for the first equal one
/// met frees the copy; the values are equal, so nothing that reads a sample can tell.
struct SampleInterner {
    private var strings: Set<String> = []
    private var lists: Set<[String]> = []

    /// `sample` with its repeated texts shared with the samples seen before.
    mutating func intern(_ sample: Sample) -> Sample {
        var sample = sample
        sample.runID = intern(sample.runID)
        sample.deviceUDID = intern(sample.deviceUDID)
        sample.deviceName = intern(sample.deviceName)
        sample.productType = intern(sample.productType)
        sample.osVersion = intern(sample.osVersion)
        sample.appBundleID = intern(sample.appBundleID)
        sample.appVersion = intern(sample.appVersion)
        sample.bundleImages = intern(list: sample.bundleImages)
        sample.warnings = intern(list: sample.warnings)
        sample.message = sample.message.map { intern($0) }
        if var times = sample.initializers {
            for index in times.indices { times[index].image = intern(times[index].image) }
            sample.initializers = times
        }
        return sample
    }

    private mutating func intern(_ text: String) -> String {
        if let known = strings.firstIndex(of: text) { return strings[known] }
        strings.insert(text)
        return text
    }

    private mutating func intern(list: [String]) -> [String] {
        if let known = lists.firstIndex(of: list) { return lists[known] }
        let shared = list.map { intern($0) }
        lists.insert(shared)
        return shared
    }
}
