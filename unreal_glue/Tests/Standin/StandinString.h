// Stand-in for Unreal's strings: wide TCHAR (char16_t, as on Linux), FString
// (UTF-16), FName, the UTF-8/ANSI converters and their macros, FPaths, a
// checked printf-style formatter behind FString::Printf and UE_LOG, and the
// log categories. Included by StandinCore.h (needs its types). See README.md.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

// ------------------------------------------------------------- converters

/** TCHAR text: UTF-16 (Linux). With -DSTANDIN_WCHAR_TCHAR (Windows' wchar_t)
 *  only the headers are used, to compile the glue; the bodies are UTF-16. */
typedef std::basic_string<TCHAR> FStandinTString;

/** UTF-16 → UTF-8 (unpaired surrogates become U+FFFD). */
std::string StandinUtf16ToUtf8(const TCHAR* Text, int32 Len = -1);
/** UTF-8 → UTF-16 (invalid sequences become U+FFFD). */
FStandinTString StandinUtf8ToUtf16(const ANSICHAR* Text, int32 Len = -1);

/** A converter's buffer: the converted text, overwritten with '#' (keeping
 *  the NUL) when the converter dies, so a pointer kept past the full
 *  expression of TCHAR_TO_UTF8 & co. reads garbage (and ASan sees the free). */
template <typename CharType>
class TStandinConvertedBuffer
{
public:
	explicit TStandinConvertedBuffer(std::basic_string<CharType> Text) : Chars(Text.begin(), Text.end())
	{
		Chars.push_back(CharType(0));
	}
	~TStandinConvertedBuffer()
	{
		for (size_t Index = 0; Index + 1 < Chars.size(); ++Index)
			Chars[Index] = CharType('#');
	}
	TStandinConvertedBuffer(const TStandinConvertedBuffer&) = delete;
	TStandinConvertedBuffer& operator=(const TStandinConvertedBuffer&) = delete;

	const CharType* Get() const { return Chars.data(); }
	/** Code units without the NUL terminator. */
	int32 Length() const { return static_cast<int32>(Chars.size() - 1); }

private:
	std::vector<CharType> Chars;
};

/** TCHAR → UTF-8. Get() is `const ANSICHAR*` (UE4 and early UE5). */
class FTCHARToUTF8 : public TStandinConvertedBuffer<ANSICHAR>
{
public:
	explicit FTCHARToUTF8(const TCHAR* Text) : TStandinConvertedBuffer(StandinUtf16ToUtf8(Text)) {}
	FTCHARToUTF8(const TCHAR* Text, int32 Len) : TStandinConvertedBuffer(StandinUtf16ToUtf8(Text, Len)) {}
};

/** UTF-8 → TCHAR. */
class FUTF8ToTCHAR : public TStandinConvertedBuffer<TCHAR>
{
public:
	explicit FUTF8ToTCHAR(const ANSICHAR* Text) : TStandinConvertedBuffer(StandinUtf8ToUtf16(Text)) {}
	FUTF8ToTCHAR(const ANSICHAR* Text, int32 Len) : TStandinConvertedBuffer(StandinUtf8ToUtf16(Text, Len)) {}
};

/** TCHAR → ANSI: characters above 0x7F become '?', as Unreal's bogus char. */
class FTCHARToANSI : public TStandinConvertedBuffer<ANSICHAR>
{
public:
	explicit FTCHARToANSI(const TCHAR* Text);
};

/** ANSI → TCHAR: each byte becomes the code unit of the same value
 *  (Latin-1), so UTF-8 text passed as ANSI is mangled, as in Unreal. */
class FANSIToTCHAR : public TStandinConvertedBuffer<TCHAR>
{
public:
	explicit FANSIToTCHAR(const ANSICHAR* Text);
};

template <typename To>
struct TStandinStringCast;
template <>
struct TStandinStringCast<ANSICHAR>
{
	using Type = FTCHARToANSI;
};
template <>
struct TStandinStringCast<TCHAR>
{
	using Type = FANSIToTCHAR;
};
/** StringCast<ANSICHAR>(const TCHAR*) / StringCast<TCHAR>(const ANSICHAR*). */
template <typename To, typename From>
typename TStandinStringCast<To>::Type StringCast(const From* Text)
{
	return typename TStandinStringCast<To>::Type(Text);
}

// As in Unreal: a temporary converter's Get(), valid until the end of the
// full expression (C-style casts included, as Unreal's macros have them).
#define TCHAR_TO_UTF8(str) (ANSICHAR*)FTCHARToUTF8((const TCHAR*)str).Get()
#define UTF8_TO_TCHAR(str) (TCHAR*)FUTF8ToTCHAR((const ANSICHAR*)str).Get()
#define TCHAR_TO_ANSI(str) (ANSICHAR*)StringCast<ANSICHAR>(static_cast<const TCHAR*>(str)).Get()
#define ANSI_TO_TCHAR(str) (TCHAR*)StringCast<TCHAR>(static_cast<const ANSICHAR*>(str)).Get()

// ----------------------------------------------------- checked formatting

/** One argument of FString::Printf / UE_LOG, with what it was. */
struct FStandinFormatArg
{
	enum EKind
	{
		Signed,
		Unsigned,
		Floating,
		TcharString,
		AnsiString,
		OtherPointer,
		NullPointer,
	};
	EKind Kind = Signed;
	int32 Bytes = 0; // integers: the size of the argument's type
	long long Int = 0;
	unsigned long long UInt = 0;
	double Float = 0.0;
	const void* Pointer = nullptr;
};

/** Unreal's TIsValidVariadicFunctionArg: arithmetic, unscoped enums,
 *  pointers and nullptr (an FString argument is a compile error). */
template <typename T>
struct TStandinIsValidFormatArg
{
	static constexpr bool Value = std::is_arithmetic<T>::value || std::is_pointer<T>::value ||
		std::is_same<T, std::nullptr_t>::value || (std::is_enum<T>::value && std::is_convertible<T, long long>::value);
};

/** Unreal's TIsArrayOrRefOfType<FmtType, TCHAR>: the format is a TEXT("...") literal. */
template <typename T>
struct TStandinIsTcharArray
{
	using Bare = typename std::remove_reference<T>::type;
	static constexpr bool Value =
		std::is_array<Bare>::value && std::is_same<typename std::remove_cv<typename std::remove_extent<Bare>::type>::type, TCHAR>::value;
};

template <typename T>
FStandinFormatArg StandinFormatArg(T Value)
{
	FStandinFormatArg Arg;
	if constexpr (std::is_same<T, std::nullptr_t>::value)
	{
		Arg.Kind = FStandinFormatArg::NullPointer;
	}
	else if constexpr (std::is_pointer<T>::value)
	{
		using Pointee = typename std::remove_cv<typename std::remove_pointer<T>::type>::type;
		Arg.Kind = std::is_same<Pointee, TCHAR>::value     ? FStandinFormatArg::TcharString
			: std::is_same<Pointee, ANSICHAR>::value       ? FStandinFormatArg::AnsiString
			                                               : FStandinFormatArg::OtherPointer;
		Arg.Pointer = static_cast<const void*>(Value);
	}
	else if constexpr (std::is_floating_point<T>::value)
	{
		Arg.Kind = FStandinFormatArg::Floating;
		Arg.Float = static_cast<double>(Value);
	}
	else if constexpr (std::is_enum<T>::value)
	{
		Arg.Kind = FStandinFormatArg::Signed;
		Arg.Bytes = static_cast<int32>(sizeof(T));
		Arg.Int = static_cast<long long>(Value);
	}
	else if constexpr (std::is_signed<T>::value)
	{
		Arg.Kind = FStandinFormatArg::Signed;
		Arg.Bytes = static_cast<int32>(sizeof(T));
		Arg.Int = static_cast<long long>(Value);
	}
	else
	{
		Arg.Kind = FStandinFormatArg::Unsigned;
		Arg.Bytes = static_cast<int32>(sizeof(T));
		Arg.UInt = static_cast<unsigned long long>(Value);
	}
	return Arg;
}

/** Formats as Unreal's Printf: `%s` takes a `const TCHAR*`; conversions
 *  %s %c %d %i %u %x %X %lld %lli %llu %llx %f %g %e %p %% with flags, width
 *  and precision. Aborts (naming Caller) on an unknown conversion, a wrong
 *  argument type or count. */
FStandinTString StandinFormat(const char* Caller, const TCHAR* Format, const FStandinFormatArg* Args, int32 NumArgs);

// ----------------------------------------------------------------- FString

namespace ESearchCase
{
	enum Type
	{
		CaseSensitive,
		IgnoreCase,
	};
}

/** UTF-16 text. `==` ignores case (ASCII), as Unreal's; Equals defaults
 *  to case-sensitive, as Unreal's. */
class FString
{
public:
	FString() = default;
	FString(const TCHAR* Text) : Data(Text != nullptr ? Text : TEXT("")) {}
	/** ANSI text, widened byte by byte (Latin-1), as Unreal converts. */
	FString(const ANSICHAR* Text);
	FString(int32 Count, const TCHAR* Text) : Data(Text, static_cast<size_t>(Count)) {}

	/** Never null (an empty string gives TEXT("")). */
	const TCHAR* operator*() const { return Data.c_str(); }
	int32 Len() const { return static_cast<int32>(Data.size()); }
	bool IsEmpty() const { return Data.empty(); }
	TCHAR operator[](int32 Index) const;
	bool Equals(const FString& Other, ESearchCase::Type SearchCase = ESearchCase::CaseSensitive) const;
	int32 Compare(const FString& Other, ESearchCase::Type SearchCase = ESearchCase::CaseSensitive) const;

	friend bool operator==(const FString& A, const FString& B) { return A.Equals(B, ESearchCase::IgnoreCase); }
	friend bool operator!=(const FString& A, const FString& B) { return !A.Equals(B, ESearchCase::IgnoreCase); }
	friend FString operator+(const FString& A, const FString& B)
	{
		FString Result = A;
		Result.Data += B.Data;
		return Result;
	}
	FString& operator+=(const FString& Other)
	{
		Data += Other.Data;
		return *this;
	}
	FString& operator+=(TCHAR Char)
	{
		Data += Char;
		return *this;
	}
	FString& Append(const FString& Other) { return *this += Other; }
	FString& AppendChar(TCHAR Char) { return *this += Char; }
	void Reset() { Data.clear(); }
	void Empty() { FStandinTString().swap(Data); }

	static FString FromInt(int32 Value);
	/** Unreal's: "%f" with trailing zeros dropped, keeping InMinFractionalDigits. */
	static FString SanitizeFloat(double Value, int32 InMinFractionalDigits = 1);

	/** Unreal's shape: the format must be a TEXT("...") literal and every
	 *  argument a number, an unscoped enum or a pointer (compile errors). */
	template <typename FmtType, typename... Types>
	static FString Printf(const FmtType& Fmt, Types... Args)
	{
		static_assert(TStandinIsTcharArray<FmtType>::Value, "Formatting string must be a TCHAR array.");
		static_assert((TStandinIsValidFormatArg<Types>::Value && ...), "Invalid argument(s) passed to FString::Printf");
		const FStandinFormatArg Packed[] = {StandinFormatArg(Args)..., FStandinFormatArg()};
		return StandinFromUtf16(StandinFormat("FString::Printf", Fmt, Packed, static_cast<int32>(sizeof...(Args))));
	}

	/** Stand-in only: UTF-8 copy (for game and test code). */
	std::string StandinStd() const { return StandinUtf16ToUtf8(Data.c_str(), Len()); }
	/** Stand-in only. */
	static FString StandinFromUtf8(const std::string& Utf8);
	static FString StandinFromUtf16(FStandinTString Text);

private:
	FStandinTString Data;
};

/** Unreal's FName: compares ignoring case; "None" and the empty name are NAME_None. */
class FName
{
public:
	FName() = default;
	FName(const TCHAR* InText) : Text(InText) {}
	FName(const ANSICHAR* InText) : Text(InText) {}
	FName(const FString& InText) : Text(InText) {}
	FString ToString() const { return IsNone() ? FString(TEXT("None")) : Text; }
	bool operator==(const FName& Other) const { return IsNone() ? Other.IsNone() : Text == Other.Text; }
	bool operator!=(const FName& Other) const { return !(*this == Other); }
	bool IsNone() const { return Text.IsEmpty() || Text == FString(TEXT("None")); }

private:
	FString Text;
};
#define NAME_None FName()

struct FPaths
{
	/** Joins with '/' (one separator between parts). */
	template <typename... Parts>
	static FString Combine(const Parts&... InParts)
	{
		FString Path;
		(StandinAppendPart(Path, StandinPartText(InParts)), ...);
		return Path;
	}

private:
	static const TCHAR* StandinPartText(const TCHAR* Part) { return Part; }
	static const TCHAR* StandinPartText(const FString& Part) { return *Part; }
	static void StandinAppendPart(FString& Path, const TCHAR* Part);
};

// ---------------------------------------------------------------- logging

namespace ELogVerbosity
{
	enum Type : uint8
	{
		NoLogging = 0,
		Fatal,
		Error,
		Warning,
		Display,
		Log,
		Verbose,
		VeryVerbose,
		All = VeryVerbose
	};
}

struct FLogCategoryBase
{
	const char* Name;
	ELogVerbosity::Type Verbosity;
};

/** Writes `Category: Verbosity: text` to stderr (serialised: callable from
 *  any thread); Fatal aborts. */
void StandinLogLine(const FLogCategoryBase& Category, ELogVerbosity::Type Verbosity, const FStandinTString& Text);

template <typename... Types>
void StandinLogf(const FLogCategoryBase& Category, ELogVerbosity::Type Verbosity, const TCHAR* Format, Types... Args)
{
	static_assert((TStandinIsValidFormatArg<Types>::Value && ...), "Invalid argument(s) passed to UE_LOG");
	const FStandinFormatArg Packed[] = {StandinFormatArg(Args)..., FStandinFormatArg()};
	StandinLogLine(Category, Verbosity, StandinFormat("UE_LOG", Format, Packed, static_cast<int32>(sizeof...(Args))));
}

#define DECLARE_LOG_CATEGORY_EXTERN(Name, Default, Compile) extern FLogCategoryBase Name
#define DEFINE_LOG_CATEGORY(Name) FLogCategoryBase Name{#Name, ELogVerbosity::Log}
#define DEFINE_LOG_CATEGORY_STATIC(Name, Default, Compile)                     \
	static FLogCategoryBase Name { #Name, ELogVerbosity::Default }
/** As Unreal's: the format must be a TEXT("...") literal, the arguments
 *  are not evaluated when the line is suppressed. */
#define UE_LOG(CategoryName, VerbosityName, Format, ...)                                            \
	do                                                                                                \
	{                                                                                                 \
		static_assert(TStandinIsTcharArray<decltype(Format)>::Value, "Formatting string must be a TCHAR array."); \
		if (ELogVerbosity::VerbosityName <= (CategoryName).Verbosity)                                 \
			StandinLogf(CategoryName, ELogVerbosity::VerbosityName, Format, ##__VA_ARGS__);           \
	} while (0)

[[noreturn]] void StandinCheckfFailed(const char* File, int Line, const char* Expression, const FString& Message);
bool StandinEnsureFailed(const char* File, int Line, const char* Expression, const FString& Message);

#define checkf(Expression, Format, ...)                                                               \
	do                                                                                                \
	{                                                                                                 \
		if (!(Expression))                                                                            \
			StandinCheckfFailed(__FILE__, __LINE__, #Expression, FString::Printf(Format, ##__VA_ARGS__)); \
	} while (0)
/** Logs once per failure and evaluates to the condition (never aborts). */
#define ensure(Expression) ((Expression) || StandinEnsureFailed(__FILE__, __LINE__, #Expression, FString()))
#define ensureMsgf(Expression, Format, ...)                                                           \
	((Expression) || StandinEnsureFailed(__FILE__, __LINE__, #Expression, FString::Printf(Format, ##__VA_ARGS__)))
