/// Makes a libimobiledevice client the one way the style asks for: `new` calls the library's constructor,
/// which fills in `client` and returns a code. A client handed back along with a failure is freed, then `check`
/// throws the failure; a success that returned no client is a protocol error.
/// - Parameters:
///   - operation: the C call, for the error when no client came back.
///   - udid: the device, likewise.
///   - success: the library's success code.
///   - free: the client's free function.
///   - new: calls the constructor.
///   - check: throws the `DeviceError` for a failing code.
/// - Throws: what `check` throws, or `DeviceError.protocolError` when no client came back.
func makeClient<Client, Code: Equatable, Freed>(
    _ operation: String, udid: String, success: Code, free: (Client) -> Freed, new: (inout Client?) -> Code,
    check: (Code) throws -> Void
) throws -> Client {
    var client: Client?
    let code = new(&client)
    if code != success, let client { _ = free(client) }
    try check(code)
    guard let client else { throw DeviceError.protocolError(operation: operation, udid: udid, detail: "no client") }
    return client
}
