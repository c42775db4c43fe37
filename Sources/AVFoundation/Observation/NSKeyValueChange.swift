/// The kind of a change (Foundation's enumeration): Avocet's observable properties are set.
public enum NSKeyValueChange: UInt, Sendable {
    case setting = 1, insertion = 2, removal = 3, replacement = 4
}
