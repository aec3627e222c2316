/// The services every new lab registers unless told otherwise (`EmulatedLab.start(…, services:)`).
/// Add a service here once it is implemented.
public enum BuiltInServices {
    /// The default service set.
    public static var all: [any EmulatedService] { [] }
}
