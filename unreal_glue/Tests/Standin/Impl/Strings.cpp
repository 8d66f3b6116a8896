// The stand-in's strings: UTF-16 ↔ UTF-8, FString, the checked formatter
// behind FString::Printf / UE_LOG / checkf, and logging (see README.md).
#include "StandinCore.h"

#include <cstdlib>
#include <mutex>
#include <set>
#include <utility>

// ------------------------------------------------------------ conversions

namespace
{
	size_t LengthOf(const TCHAR* Text, int32 Len)
	{
		return Len >= 0 ? static_cast<size_t>(Len) : std::char_traits<TCHAR>::length(Text);
	}

	void AppendUtf8(std::string& Out, uint32 Code)
	{
		if (Code < 0x80)
		{
			Out += static_cast<char>(Code);
		}
		else if (Code < 0x800)
		{
			Out += static_cast<char>(0xC0 | (Code >> 6));
			Out += static_cast<char>(0x80 | (Code & 0x3F));
		}
		else if (Code < 0x10000)
		{
			Out += static_cast<char>(0xE0 | (Code >> 12));
			Out += static_cast<char>(0x80 | ((Code >> 6) & 0x3F));
			Out += static_cast<char>(0x80 | (Code & 0x3F));
		}
		else
		{
			Out += static_cast<char>(0xF0 | (Code >> 18));
			Out += static_cast<char>(0x80 | ((Code >> 12) & 0x3F));
			Out += static_cast<char>(0x80 | ((Code >> 6) & 0x3F));
			Out += static_cast<char>(0x80 | (Code & 0x3F));
		}
	}

	void AppendUtf16(std::u16string& Out, uint32 Code)
	{
		if (Code < 0x10000)
		{
			Out += static_cast<char16_t>(Code);
		}
		else
		{
			Code -= 0x10000;
			Out += static_cast<char16_t>(0xD800 + (Code >> 10));
			Out += static_cast<char16_t>(0xDC00 + (Code & 0x3FF));
		}
	}

	constexpr uint32 Replacement = 0xFFFD;
}

std::string StandinUtf16ToUtf8(const TCHAR* Text, int32 Len)
{
	std::string Out;
	if (Text == nullptr)
		return Out;
	const size_t Count = LengthOf(Text, Len);
	for (size_t Index = 0; Index < Count; ++Index)
	{
		uint32 Code = Text[Index];
		if (Code >= 0xD800 && Code <= 0xDBFF && Index + 1 < Count && Text[Index + 1] >= 0xDC00 && Text[Index + 1] <= 0xDFFF)
		{
			Code = 0x10000 + ((Code - 0xD800) << 10) + (static_cast<uint32>(Text[Index + 1]) - 0xDC00);
			++Index;
		}
		else if (Code >= 0xD800 && Code <= 0xDFFF)
		{
			Code = Replacement; // an unpaired surrogate
		}
		AppendUtf8(Out, Code);
	}
	return Out;
}

std::u16string StandinUtf8ToUtf16(const ANSICHAR* Text, int32 Len)
{
	std::u16string Out;
	if (Text == nullptr)
		return Out;
	const size_t Count = Len >= 0 ? static_cast<size_t>(Len) : std::strlen(Text);
	const unsigned char* Bytes = reinterpret_cast<const unsigned char*>(Text);
	size_t Index = 0;
	while (Index < Count)
	{
		const uint32 Lead = Bytes[Index];
		const uint32 Extra = Lead < 0x80 ? 0 : (Lead >> 5) == 0x6 ? 1 : (Lead >> 4) == 0xE ? 2 : (Lead >> 3) == 0x1E ? 3 : 4;
		if (Extra == 4 || (Extra > 0 && Index + Extra >= Count))
		{
			AppendUtf16(Out, Replacement); // a stray continuation byte or a truncated sequence
			++Index;
			continue;
		}
		uint32 Code = Extra == 0 ? Lead : Lead & (0x3Fu >> Extra);
		bool bValid = true;
		for (uint32 Next = 1; Next <= Extra; ++Next)
		{
			const uint32 Byte = Bytes[Index + Next];
			bValid = bValid && (Byte & 0xC0) == 0x80;
			Code = (Code << 6) | (Byte & 0x3F);
		}
		static const uint32 Smallest[4] = {0, 0x80, 0x800, 0x10000};
		bValid = bValid && Code >= Smallest[Extra] && Code <= 0x10FFFF && !(Code >= 0xD800 && Code <= 0xDFFF);
		AppendUtf16(Out, bValid ? Code : Replacement);
		Index += bValid ? Extra + 1 : 1;
	}
	return Out;
}

namespace
{
	std::string ToAnsi(const TCHAR* Text)
	{
		std::string Out;
		for (const TCHAR* At = Text; At != nullptr && *At != 0; ++At)
			Out += *At <= 0x7F ? static_cast<char>(*At) : '?';
		return Out;
	}

	std::u16string FromAnsi(const ANSICHAR* Text)
	{
		std::u16string Out;
		for (const ANSICHAR* At = Text; At != nullptr && *At != 0; ++At)
			Out += static_cast<char16_t>(static_cast<unsigned char>(*At));
		return Out;
	}

	TCHAR FoldCase(TCHAR Char)
	{
		return Char >= u'A' && Char <= u'Z' ? static_cast<TCHAR>(Char - u'A' + u'a') : Char;
	}
}

FTCHARToANSI::FTCHARToANSI(const TCHAR* Text) : TStandinConvertedBuffer(ToAnsi(Text)) {}

FANSIToTCHAR::FANSIToTCHAR(const ANSICHAR* Text) : TStandinConvertedBuffer(FromAnsi(Text)) {}

// ---------------------------------------------------------------- FString

FString::FString(const ANSICHAR* Text) : Data(FromAnsi(Text)) {}

TCHAR FString::operator[](int32 Index) const
{
	check(Index >= 0 && Index < Len());
	return Data[static_cast<size_t>(Index)];
}

int32 FString::Compare(const FString& Other, ESearchCase::Type SearchCase) const
{
	const size_t Common = std::min(Data.size(), Other.Data.size());
	for (size_t Index = 0; Index < Common; ++Index)
	{
		TCHAR A = Data[Index];
		TCHAR B = Other.Data[Index];
		if (SearchCase == ESearchCase::IgnoreCase)
		{
			A = FoldCase(A);
			B = FoldCase(B);
		}
		if (A != B)
			return A < B ? -1 : 1;
	}
	return Data.size() == Other.Data.size() ? 0 : Data.size() < Other.Data.size() ? -1 : 1;
}

bool FString::Equals(const FString& Other, ESearchCase::Type SearchCase) const
{
	return Data.size() == Other.Data.size() && Compare(Other, SearchCase) == 0;
}

FString FString::FromInt(int32 Value)
{
	return Printf(TEXT("%d"), Value);
}

FString FString::SanitizeFloat(double Value, int32 InMinFractionalDigits)
{
	// Unreal's: "%f", trailing zeros (and a bare separator) trimmed, then
	// padded to InMinFractionalDigits.
	std::u16string Text = *Printf(TEXT("%f"), Value);
	const size_t Separator = Text.find(u'.');
	check(Separator != std::u16string::npos);
	size_t Keep = Text.size();
	while (Keep > Separator + 1 && Text[Keep - 1] == u'0')
		--Keep;
	if (Keep == Separator + 1)
		Keep = Separator;
	Text.resize(Keep);
	if (InMinFractionalDigits > 0)
	{
		if (Keep == Separator)
			Text += u'.';
		const int32 Digits = static_cast<int32>(Text.size() - Separator - 1);
		for (int32 Pad = Digits; Pad < InMinFractionalDigits; ++Pad)
			Text += u'0';
	}
	return StandinFromUtf16(std::move(Text));
}

FString FString::StandinFromUtf8(const std::string& Utf8)
{
	return StandinFromUtf16(StandinUtf8ToUtf16(Utf8.c_str(), static_cast<int32>(Utf8.size())));
}

FString FString::StandinFromUtf16(std::u16string Text)
{
	FString Result;
	Result.Data = std::move(Text);
	return Result;
}

void FPaths::StandinAppendPart(FString& Path, const TCHAR* Part)
{
	if (Part == nullptr || *Part == 0)
		return;
	if (!Path.IsEmpty() && Path[Path.Len() - 1] != u'/' && *Part != u'/')
		Path += u'/';
	Path += FString(Part);
}

bool StandinNameIn(const TCHAR* Name, std::initializer_list<const TCHAR*> Names)
{
	for (const TCHAR* Candidate : Names)
		if (FString(Name) == FString(Candidate))
			return true;
	return false;
}

// --------------------------------------------------------------- formatter

namespace
{
	const char* KindName(const FStandinFormatArg& Arg)
	{
		switch (Arg.Kind)
		{
		case FStandinFormatArg::Signed: return Arg.Bytes == 8 ? "a 64-bit signed integer" : "a signed integer";
		case FStandinFormatArg::Unsigned: return Arg.Bytes == 8 ? "a 64-bit unsigned integer" : "an unsigned integer";
		case FStandinFormatArg::Floating: return "a floating-point number";
		case FStandinFormatArg::TcharString: return "a const TCHAR*";
		case FStandinFormatArg::AnsiString: return "a const ANSICHAR* (char*)";
		case FStandinFormatArg::OtherPointer: return "a pointer";
		default: return "nullptr";
		}
	}

	bool IsInteger(const FStandinFormatArg& Arg)
	{
		return Arg.Kind == FStandinFormatArg::Signed || Arg.Kind == FStandinFormatArg::Unsigned;
	}

	std::u16string Widen(const std::string& Ascii)
	{
		return std::u16string(Ascii.begin(), Ascii.end());
	}

	/** snprintf with a spec built from the format (flags, width, precision). */
	template <typename T>
	std::string NarrowPrintf(const std::string& Spec, T Value)
	{
		const int Needed = std::snprintf(nullptr, 0, Spec.c_str(), Value);
		check(Needed >= 0);
		std::string Out(static_cast<size_t>(Needed) + 1, '\0');
		std::snprintf(&Out[0], Out.size(), Spec.c_str(), Value);
		Out.resize(static_cast<size_t>(Needed));
		return Out;
	}

	std::u16string Pad(std::u16string Text, int Width, bool bLeft)
	{
		if (Width > 0 && Text.size() < static_cast<size_t>(Width))
		{
			const std::u16string Spaces(static_cast<size_t>(Width) - Text.size(), u' ');
			Text = bLeft ? Text + Spaces : Spaces + Text;
		}
		return Text;
	}
}

std::u16string StandinFormat(const char* Caller, const TCHAR* Format, const FStandinFormatArg* Args, int32 NumArgs)
{
	check(Format != nullptr);
	const std::string FormatUtf8 = StandinUtf16ToUtf8(Format);
	std::u16string Out;
	int32 Next = 0;
	for (const TCHAR* At = Format; *At != 0; ++At)
	{
		if (*At != u'%')
		{
			Out += *At;
			continue;
		}
		const TCHAR* const Start = At++;
		if (*At == u'%')
		{
			Out += u'%';
			continue;
		}
		std::string Spec = "%";
		bool bLeft = false;
		while (*At == u'-' || *At == u'+' || *At == u' ' || *At == u'#' || *At == u'0')
		{
			bLeft = bLeft || *At == u'-';
			Spec += static_cast<char>(*At++);
		}
		int Width = 0;
		while (*At >= u'0' && *At <= u'9')
		{
			Width = Width * 10 + (*At - u'0');
			Spec += static_cast<char>(*At++);
		}
		int Precision = -1;
		if (*At == u'.')
		{
			Spec += static_cast<char>(*At++);
			Precision = 0;
			while (*At >= u'0' && *At <= u'9')
			{
				Precision = Precision * 10 + (*At - u'0');
				Spec += static_cast<char>(*At++);
			}
		}
		bool bLongLong = false;
		if (At[0] == u'l' && At[1] == u'l')
		{
			bLongLong = true;
			At += 2;
		}
		const TCHAR Conversion = *At;
		const std::string Directive = StandinUtf16ToUtf8(Start, static_cast<int32>(At - Start + (Conversion != 0 ? 1 : 0)));
		const bool bKnown = bLongLong ? (Conversion == u'd' || Conversion == u'i' || Conversion == u'u' || Conversion == u'x' || Conversion == u'X')
									  : std::char_traits<TCHAR>::find(u"sciduxXfFgGep", 13, Conversion) != nullptr;
		if (Conversion == 0 || !bKnown)
		{
			STANDIN_FATAL("%s(\"%s\"): unknown conversion \"%s\" (the stand-in knows %%s %%c %%d %%i %%u %%x %%X %%lld %%llu %%f %%g %%e %%p %%%%)",
				Caller, FormatUtf8.c_str(), Directive.c_str());
		}
		if (Next >= NumArgs)
		{
			STANDIN_FATAL("%s(\"%s\"): \"%s\" has no argument (%d given)", Caller, FormatUtf8.c_str(), Directive.c_str(), NumArgs);
		}
		const FStandinFormatArg& Arg = Args[Next++];
		auto WrongType = [&](const char* Wants) {
			STANDIN_FATAL("%s(\"%s\"): \"%s\" takes %s, argument %d is %s", Caller, FormatUtf8.c_str(), Directive.c_str(), Wants, Next,
				KindName(Arg));
		};
		switch (Conversion)
		{
		case u's':
		{
			if (Arg.Kind == FStandinFormatArg::AnsiString)
				WrongType("a const TCHAR* (Unreal's %s is wide: pass *FString, TEXT(\"...\") or UTF8_TO_TCHAR(...))");
			if (Arg.Kind != FStandinFormatArg::TcharString && Arg.Kind != FStandinFormatArg::NullPointer)
				WrongType("a const TCHAR*");
			const TCHAR* Text = static_cast<const TCHAR*>(Arg.Pointer);
			std::u16string Value = Text != nullptr ? std::u16string(Text) : std::u16string(u"(null)");
			if (Precision >= 0 && Value.size() > static_cast<size_t>(Precision))
				Value.resize(static_cast<size_t>(Precision));
			Out += Pad(std::move(Value), Width, bLeft);
			break;
		}
		case u'c':
			if (!IsInteger(Arg) || Arg.Bytes > 4)
				WrongType("a TCHAR");
			Out += Pad(std::u16string(1, static_cast<char16_t>(Arg.Kind == FStandinFormatArg::Signed ? static_cast<uint64>(Arg.Int) : Arg.UInt)),
				Width, bLeft);
			break;
		case u'p':
			if (IsInteger(Arg) || Arg.Kind == FStandinFormatArg::Floating)
				WrongType("a pointer");
			Out += Widen(NarrowPrintf(Spec + "p", Arg.Pointer));
			break;
		case u'f':
		case u'F':
		case u'g':
		case u'G':
		case u'e':
			if (Arg.Kind != FStandinFormatArg::Floating)
				WrongType("a float or double");
			Out += Widen(NarrowPrintf(Spec + static_cast<char>(Conversion), Arg.Float));
			break;
		default: // d i u x X, with or without ll
		{
			if (!IsInteger(Arg))
				WrongType(bLongLong ? "a 64-bit integer" : "a 32-bit integer");
			if (bLongLong && Arg.Bytes != 8)
				WrongType("a 64-bit integer (int64/uint64: Unreal would read 8 bytes from a smaller argument)");
			if (!bLongLong && Arg.Bytes > 4)
				WrongType("a 32-bit integer (use %lld / %llu for int64 / uint64)");
			const unsigned long long Bits = Arg.Kind == FStandinFormatArg::Signed ? static_cast<unsigned long long>(Arg.Int) : Arg.UInt;
			const bool bSigned = Conversion == u'd' || Conversion == u'i';
			const std::string Full = Spec + (bLongLong ? "ll" : "") + static_cast<char>(Conversion);
			if (bLongLong)
				Out += Widen(bSigned ? NarrowPrintf(Full, static_cast<long long>(Bits)) : NarrowPrintf(Full, Bits));
			else
				Out += Widen(bSigned ? NarrowPrintf(Full, static_cast<int>(static_cast<unsigned int>(Bits)))
									 : NarrowPrintf(Full, static_cast<unsigned int>(Bits)));
			break;
		}
		}
	}
	if (Next != NumArgs)
	{
		STANDIN_FATAL("%s(\"%s\"): %d arguments for %d conversions", Caller, FormatUtf8.c_str(), NumArgs, Next);
	}
	return Out;
}

// ------------------------------------------------------------------ logging

namespace
{
	std::mutex GLogMutex;

	const char* VerbosityName(ELogVerbosity::Type Verbosity)
	{
		switch (Verbosity)
		{
		case ELogVerbosity::Fatal: return "Fatal";
		case ELogVerbosity::Error: return "Error";
		case ELogVerbosity::Warning: return "Warning";
		case ELogVerbosity::Display: return "Display";
		case ELogVerbosity::Log: return "Log";
		case ELogVerbosity::Verbose: return "Verbose";
		default: return "VeryVerbose";
		}
	}
}

void StandinLogLine(const FLogCategoryBase& Category, ELogVerbosity::Type Verbosity, const std::u16string& Text)
{
	if (Verbosity > Category.Verbosity)
		return;
	const std::string Line = StandinUtf16ToUtf8(Text.c_str(), static_cast<int32>(Text.size()));
	{
		const std::lock_guard<std::mutex> Lock(GLogMutex);
		std::fprintf(stderr, "%s: %s: %s\n", Category.Name, VerbosityName(Verbosity), Line.c_str());
		std::fflush(stderr);
	}
	if (Verbosity == ELogVerbosity::Fatal)
		std::abort();
}

void StandinCheckfFailed(const char* File, int Line, const char* Expression, const FString& Message)
{
	StandinFatalf(File, Line, "%s: %s", Expression, Message.StandinStd().c_str());
}

bool StandinEnsureFailed(const char* File, int Line, const char* Expression, const FString& Message)
{
	static std::mutex Mutex;
	static std::set<std::pair<std::string, int>> Reported;
	const std::lock_guard<std::mutex> Lock(Mutex);
	if (Reported.insert({File, Line}).second)
	{
		std::fprintf(stderr, "stand-in ensure failed at %s:%d: %s %s\n", File, Line, Expression, Message.StandinStd().c_str());
		std::fflush(stderr);
	}
	return false;
}
