// Stand-in for the parts of Unreal's Core module the glue uses: integer and
// character types, FVector/FRotator/FTransform (UE5's double precision, UE's
// left-handed rotator convention), TArray/TSet/TMap/TPair, FString/FName,
// logging, and the reflection macros (no-ops). See README.md.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

// ------------------------------------------------------------------ types

typedef signed char int8;
typedef unsigned char uint8;
typedef short int16;
typedef unsigned short uint16;
typedef int int32;
typedef unsigned int uint32;
typedef long long int64;          // as Unreal: `long long`, so %lld / %llu are right
typedef unsigned long long uint64;
typedef char ANSICHAR;
typedef char TCHAR;               // Unreal: char16_t / wchar_t (see README)

#define TEXT(x) x
#define TCHAR_TO_UTF8(x) (x)
#define UTF8_TO_TCHAR(x) (x)
#define TCHAR_TO_ANSI(x) (x)

#define PLATFORM_WINDOWS 0
#define PLATFORM_LINUX 1
#define PLATFORM_MAC 0

#define FORCEINLINE inline
#ifndef CARLASERVERGLUE_API
#define CARLASERVERGLUE_API
#endif

// -------------------------------------------------- reflection (UHT) macros

#define UCLASS(...)
#define USTRUCT(...)
#define UENUM(...)
#define UINTERFACE(...)
#define UPROPERTY(...)
#define UFUNCTION(...)
// UHT's GENERATED_BODY declares `Super` (the UCLASS's base). The stand-in
// cannot name the class, so `Super` is the `ThisClass` of the nearest
// stand-in engine base (AActor, UActorComponent, ...): right for one level
// of UCLASS derivation from an engine class, which is all the glue uses.
#define GENERATED_BODY()                                                       \
public:                                                                        \
	using Super = ThisClass;                                                   \
                                                                               \
private:
#define GENERATED_UCLASS_BODY() GENERATED_BODY()

/** `ThisClass` seen by a UCLASS without an engine base (an interface's I-class). */
struct FStandinNoSuper
{
};
using ThisClass = FStandinNoSuper;

// ---------------------------------------------------------------- checks

void StandinFatal(const char* File, int Line, const char* What);
#define check(x)                                                               \
	do                                                                         \
	{                                                                          \
		if (!(x))                                                              \
			StandinFatal(__FILE__, __LINE__, #x);                              \
	} while (0)
#define checkf(x, ...) check(x)

// ------------------------------------------------------------------- math

struct FMemory
{
	static void* Memcpy(void* Dest, const void* Src, size_t Count) { return std::memcpy(Dest, Src, Count); }
	static void* Memzero(void* Dest, size_t Count) { return std::memset(Dest, 0, Count); }
};

struct FVector
{
	double X = 0.0;
	double Y = 0.0;
	double Z = 0.0;

	FVector() = default;
	FVector(double InX, double InY, double InZ) : X(InX), Y(InY), Z(InZ) {}

	static const FVector ZeroVector;
	static const FVector OneVector;
	static const FVector UpVector;
	static const FVector ForwardVector;

	FVector operator+(const FVector& V) const { return FVector(X + V.X, Y + V.Y, Z + V.Z); }
	FVector operator-(const FVector& V) const { return FVector(X - V.X, Y - V.Y, Z - V.Z); }
	FVector operator-() const { return FVector(-X, -Y, -Z); }
	FVector operator*(double S) const { return FVector(X * S, Y * S, Z * S); }
	FVector operator/(double S) const { return FVector(X / S, Y / S, Z / S); }
	FVector& operator+=(const FVector& V) { X += V.X; Y += V.Y; Z += V.Z; return *this; }
	FVector& operator-=(const FVector& V) { X -= V.X; Y -= V.Y; Z -= V.Z; return *this; }
	double operator|(const FVector& V) const { return X * V.X + Y * V.Y + Z * V.Z; }
	static double DotProduct(const FVector& A, const FVector& B) { return A | B; }
	double Size() const { return std::sqrt(X * X + Y * Y + Z * Z); }
	FVector GetSafeNormal() const
	{
		const double S = Size();
		return S > 1e-8 ? *this / S : ZeroVector;
	}
	FVector ComponentMin(const FVector& V) const { return FVector(std::min(X, V.X), std::min(Y, V.Y), std::min(Z, V.Z)); }
	FVector ComponentMax(const FVector& V) const { return FVector(std::max(X, V.X), std::max(Y, V.Y), std::max(Z, V.Z)); }
};
inline FVector operator*(double S, const FVector& V) { return V * S; }

/** Rows: the rotated forward (X), right (Y) and up (Z) axes in world space,
 *  as Unreal's FRotationMatrix (row vectors: world = x·X + y·Y + z·Z). */
struct FStandinAxes
{
	FVector Axis[3];
	FVector Rotate(const FVector& V) const { return Axis[0] * V.X + Axis[1] * V.Y + Axis[2] * V.Z; }
	FVector Unrotate(const FVector& V) const { return FVector(V | Axis[0], V | Axis[1], V | Axis[2]); }
};

struct FRotator
{
	double Pitch = 0.0;
	double Yaw = 0.0;
	double Roll = 0.0;

	FRotator() = default;
	FRotator(double InPitch, double InYaw, double InRoll) : Pitch(InPitch), Yaw(InYaw), Roll(InRoll) {}

	static const FRotator ZeroRotator;

	FStandinAxes StandinAxes() const;
	static FRotator StandinFromAxes(const FStandinAxes& Axes);
	FVector RotateVector(const FVector& V) const { return StandinAxes().Rotate(V); }
	FVector UnrotateVector(const FVector& V) const { return StandinAxes().Unrotate(V); }
	/** Unit forward vector. */
	FVector Vector() const { return StandinAxes().Axis[0]; }
};

/** Location + rotation (scale is always one in the stand-in). */
struct FTransform
{
	FTransform() = default;
	explicit FTransform(const FVector& InTranslation) : Location(InTranslation) {}
	FTransform(const FRotator& InRotation, const FVector& InTranslation) : Rotation(InRotation), Location(InTranslation) {}

	static const FTransform Identity;

	FVector GetLocation() const { return Location; }
	void SetLocation(const FVector& V) { Location = V; }
	FRotator Rotator() const { return Rotation; }
	void SetRotation(const FRotator& R) { Rotation = R; }

	FVector TransformPosition(const FVector& V) const { return Location + Rotation.RotateVector(V); }
	FVector TransformPositionNoScale(const FVector& V) const { return TransformPosition(V); }
	FVector InverseTransformPosition(const FVector& V) const { return Rotation.UnrotateVector(V - Location); }
	FVector InverseTransformPositionNoScale(const FVector& V) const { return InverseTransformPosition(V); }
	FVector TransformVector(const FVector& V) const { return Rotation.RotateVector(V); }
	FVector TransformVectorNoScale(const FVector& V) const { return Rotation.RotateVector(V); }
	FVector InverseTransformVector(const FVector& V) const { return Rotation.UnrotateVector(V); }
	FVector InverseTransformVectorNoScale(const FVector& V) const { return Rotation.UnrotateVector(V); }

	/** Unreal's order: `Relative * ParentWorld` is the child's world transform. */
	FTransform operator*(const FTransform& Parent) const;
	/** This transform expressed relative to Other (`this = result * Other`). */
	FTransform GetRelativeTransform(const FTransform& Other) const;

private:
	FRotator Rotation;
	FVector Location;
};

// ------------------------------------------------------------- containers

/** Unreal's TArray over std::vector (int32 sizes and indices). */
template <typename T>
class TArray
{
public:
	typedef T ElementType;

	TArray() = default;
	TArray(std::initializer_list<T> Init) : Items(Init) {}
	TArray(const T* Ptr, int32 Count) : Items(Ptr, Ptr + Count) {}

	int32 Num() const { return static_cast<int32>(Items.size()); }
	bool IsEmpty() const { return Items.empty(); }
	bool IsValidIndex(int32 Index) const { return Index >= 0 && Index < Num(); }
	T* GetData() { return Items.data(); }
	const T* GetData() const { return Items.data(); }
	T& operator[](int32 Index)
	{
		check(IsValidIndex(Index));
		return Items[static_cast<size_t>(Index)];
	}
	const T& operator[](int32 Index) const
	{
		check(IsValidIndex(Index));
		return Items[static_cast<size_t>(Index)];
	}
	T& Last() { return (*this)[Num() - 1]; }

	int32 Add(const T& Item)
	{
		Items.push_back(Item);
		return Num() - 1;
	}
	int32 Add(T&& Item)
	{
		Items.push_back(std::move(Item));
		return Num() - 1;
	}
	template <typename... Args>
	int32 Emplace(Args&&... Arguments)
	{
		Items.emplace_back(std::forward<Args>(Arguments)...);
		return Num() - 1;
	}
	int32 AddUnique(const T& Item)
	{
		const int32 Found = Find(Item);
		return Found >= 0 ? Found : Add(Item);
	}
	/** New elements are value-initialised here (Unreal leaves them as is). */
	int32 AddUninitialized(int32 Count = 1)
	{
		const int32 First = Num();
		Items.resize(Items.size() + static_cast<size_t>(Count));
		return First;
	}
	int32 AddZeroed(int32 Count = 1) { return AddUninitialized(Count); }
	void Append(const T* Ptr, int32 Count) { Items.insert(Items.end(), Ptr, Ptr + Count); }
	void Append(const TArray& Other) { Items.insert(Items.end(), Other.Items.begin(), Other.Items.end()); }
	/** Empties the array, keeping its allocation. */
	void Reset(int32 NewSize = 0)
	{
		Items.clear();
		Items.reserve(static_cast<size_t>(NewSize));
	}
	void Empty(int32 Slack = 0)
	{
		std::vector<T>().swap(Items);
		Items.reserve(static_cast<size_t>(Slack));
	}
	void Reserve(int32 Count) { Items.reserve(static_cast<size_t>(Count)); }
	void SetNum(int32 Count) { Items.resize(static_cast<size_t>(Count)); }
	int32 Find(const T& Item) const
	{
		const auto It = std::find(Items.begin(), Items.end(), Item);
		return It == Items.end() ? -1 : static_cast<int32>(It - Items.begin());
	}
	bool Contains(const T& Item) const { return Find(Item) >= 0; }
	int32 Remove(const T& Item)
	{
		const size_t Before = Items.size();
		Items.erase(std::remove(Items.begin(), Items.end(), Item), Items.end());
		return static_cast<int32>(Before - Items.size());
	}
	void RemoveAt(int32 Index) { Items.erase(Items.begin() + Index); }

	typename std::vector<T>::iterator begin() { return Items.begin(); }
	typename std::vector<T>::iterator end() { return Items.end(); }
	typename std::vector<T>::const_iterator begin() const { return Items.begin(); }
	typename std::vector<T>::const_iterator end() const { return Items.end(); }

	/** Stand-in only: the allocated capacity (for allocation checks). */
	int32 StandinCapacity() const { return static_cast<int32>(Items.capacity()); }

private:
	std::vector<T> Items;
};

/** Unreal's TSet: unique elements, insertion order (no removal reordering). */
template <typename T>
class TSet
{
public:
	TSet() = default;
	TSet(std::initializer_list<T> Init)
	{
		for (const T& Item : Init)
			Add(Item);
	}
	void Add(const T& Item)
	{
		if (!Contains(Item))
			Items.Add(Item);
	}
	bool Contains(const T& Item) const { return Items.Contains(Item); }
	int32 Remove(const T& Item) { return Items.Remove(Item); }
	int32 Num() const { return Items.Num(); }
	void Reset() { Items.Reset(); }
	void Empty() { Items.Empty(); }
	TArray<T> Array() const { return Items; }
	auto begin() { return Items.begin(); }
	auto end() { return Items.end(); }
	auto begin() const { return Items.begin(); }
	auto end() const { return Items.end(); }

private:
	TArray<T> Items;
};

template <typename K, typename V>
struct TPair
{
	K Key;
	V Value;
	TPair() = default;
	TPair(const K& InKey, const V& InValue) : Key(InKey), Value(InValue) {}
};

/** Unreal's TMap: insertion order while nothing is removed, as Unreal's. */
template <typename K, typename V>
class TMap
{
public:
	TMap() = default;
	TMap(std::initializer_list<TPair<K, V>> Init)
	{
		for (const TPair<K, V>& Pair : Init)
			Add(Pair.Key, Pair.Value);
	}
	V& Add(const K& Key, const V& Value)
	{
		if (V* Existing = Find(Key))
		{
			*Existing = Value;
			return *Existing;
		}
		Pairs.Emplace(Key, Value);
		return Pairs.Last().Value;
	}
	V* Find(const K& Key)
	{
		for (TPair<K, V>& Pair : Pairs)
			if (Pair.Key == Key)
				return &Pair.Value;
		return nullptr;
	}
	int32 Num() const { return Pairs.Num(); }
	auto begin() const { return Pairs.begin(); }
	auto end() const { return Pairs.end(); }

private:
	TArray<TPair<K, V>> Pairs;
};

template <typename T>
using TSharedPtr = std::shared_ptr<T>;

// ---------------------------------------------------------------- strings

class FString
{
public:
	FString() = default;
	FString(const TCHAR* Text) : Data(Text != nullptr ? Text : "") {}
	explicit FString(std::string Text) : Data(std::move(Text)) {}

	const TCHAR* operator*() const { return Data.c_str(); }
	int32 Len() const { return static_cast<int32>(Data.size()); }
	bool IsEmpty() const { return Data.empty(); }
	bool operator==(const FString& Other) const { return Data == Other.Data; }
	bool operator!=(const FString& Other) const { return Data != Other.Data; }
	FString operator+(const FString& Other) const { return FString(Data + Other.Data); }
	FString& operator+=(const FString& Other)
	{
		Data += Other.Data;
		return *this;
	}

	static FString FromInt(int32 Value) { return FString(std::to_string(Value)); }
	/** Shortest text that reads back as the same float, with at least one decimal. */
	static FString SanitizeFloat(double Value);
	static FString Printf(const TCHAR* Format, ...) __attribute__((format(printf, 1, 2)));

	/** Stand-in only. */
	const std::string& StandinStd() const { return Data; }

private:
	std::string Data;
};

class FName
{
public:
	FName() = default;
	FName(const TCHAR* InText) : Text(InText) {}
	FName(const FString& InText) : Text(InText) {}
	FString ToString() const { return Text; }
	bool operator==(const FName& Other) const { return Text == Other.Text; }
	bool operator!=(const FName& Other) const { return Text != Other.Text; }
	bool IsNone() const { return Text.IsEmpty(); }

private:
	FString Text;
};
#define NAME_None FName()

/** TCHAR → UTF-8 (the identity here: TCHAR is char). Keeps its own copy. */
class FTCHARToUTF8
{
public:
	explicit FTCHARToUTF8(const TCHAR* Text) : Utf8(Text != nullptr ? Text : "") {}
	const ANSICHAR* Get() const { return Utf8.c_str(); }
	/** Bytes without the NUL terminator. */
	int32 Length() const { return static_cast<int32>(Utf8.size()); }

private:
	std::string Utf8;
};

struct FPaths
{
	template <typename... Parts>
	static FString Combine(const TCHAR* First, Parts... Rest)
	{
		std::string Path = First;
		for (const TCHAR* Part : {static_cast<const TCHAR*>(Rest)...})
		{
			if (!Path.empty() && Path.back() != '/')
				Path += '/';
			Path += Part;
		}
		return FString(Path);
	}
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

/** Writes one line to stderr (serialised: callable from any thread). */
void StandinLog(const FLogCategoryBase& Category, ELogVerbosity::Type Verbosity, const TCHAR* Format, ...)
	__attribute__((format(printf, 3, 4)));

#define DECLARE_LOG_CATEGORY_EXTERN(Name, Default, Compile) extern FLogCategoryBase Name
#define DEFINE_LOG_CATEGORY(Name) FLogCategoryBase Name{#Name, ELogVerbosity::Log}
#define DEFINE_LOG_CATEGORY_STATIC(Name, Default, Compile)                     \
	static FLogCategoryBase Name { #Name, ELogVerbosity::Default }
#define UE_LOG(Category, Verbosity, Format, ...)                               \
	StandinLog(Category, ELogVerbosity::Verbosity, Format, ##__VA_ARGS__)

// ------------------------------------------------------------ HAL bits

struct FPlatformTime
{
	/** Seconds from a monotonic clock. */
	static double Seconds();
};

struct FPlatformProcess
{
	/** dlopen (RTLD_NOW). */
	static void* GetDllHandle(const TCHAR* Filename);
	static void FreeDllHandle(void* Handle);
};

/** Frames started so far (Unreal increments it once per engine frame). */
extern uint64 GFrameCounter;
bool IsInGameThread();
