/// A setting of ``NetworkClient/Configuration-swift.struct`` that a client's transport cannot
/// honour, as ``KringleLogEvent/settingIgnored(setting:transport:reason:)`` reports it: the
/// client goes on without it rather than fail every request.
package struct IgnoredSetting: Sendable, Hashable {
    /// The setting's name, as the configuration spells it (`connectTimeout`).
    var setting: String
    /// Why the transport cannot honour it, and what holds instead.
    var reason: String

    package init(setting: String, reason: String) {
        self.setting = setting
        self.reason = reason
    }
}
