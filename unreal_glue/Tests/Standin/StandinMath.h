// Stand-in for Unreal's Core maths: FVector (UE5's double precision,
// or UE 4's float),
// FRotator (Unreal's left-handed rotation matrix), FTransform (location and
// rotation, Unreal's composition order), FBox, FIntPoint/FIntVector/FIntRect
// and FColor (B, G, R, A in memory, as on little-endian Unreal). See README.md.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

/** FVector's and FRotator's component type: UE 5's double, or UE 4's
 *  float when built with -DSTANDIN_UE4_FLOAT_MATH (the glue must compile
 *  under both without implicit conversions). */
#if defined(STANDIN_UE4_FLOAT_MATH)
typedef float FStandinReal;
#else
typedef double FStandinReal;
#endif

/** The few FMath functions the glue uses. */
struct FMath
{
	static float Tan(float Value) { return std::tan(Value); }
	static double Tan(double Value) { return std::tan(Value); }
	template <class T>
	static T DegreesToRadians(const T& DegVal)
	{
		return DegVal * static_cast<T>(3.14159265358979323846 / 180.0);
	}
};

/** Unreal's ForceInit tag (FBox(ForceInit) is an empty, invalid box). */
enum EForceInit
{
	ForceInit,
	ForceInitToZero
};

struct FVector
{
	FStandinReal X = 0.0;
	FStandinReal Y = 0.0;
	FStandinReal Z = 0.0;

	FVector() = default;
	FVector(FStandinReal InX, FStandinReal InY, FStandinReal InZ) : X(InX), Y(InY), Z(InZ) {}
	explicit FVector(EForceInit) {}

	static const FVector ZeroVector;
	static const FVector OneVector;
	static const FVector UpVector;
	static const FVector ForwardVector;
	static const FVector RightVector;

	FVector operator+(const FVector& V) const { return FVector(X + V.X, Y + V.Y, Z + V.Z); }
	FVector operator-(const FVector& V) const { return FVector(X - V.X, Y - V.Y, Z - V.Z); }
	FVector operator-() const { return FVector(-X, -Y, -Z); }
	FVector operator*(FStandinReal S) const { return FVector(X * S, Y * S, Z * S); }
	FVector operator*(const FVector& V) const { return FVector(X * V.X, Y * V.Y, Z * V.Z); }
	FVector operator/(FStandinReal S) const { return FVector(X / S, Y / S, Z / S); }
	FVector& operator+=(const FVector& V) { X += V.X; Y += V.Y; Z += V.Z; return *this; }
	FVector& operator-=(const FVector& V) { X -= V.X; Y -= V.Y; Z -= V.Z; return *this; }
	FVector& operator*=(FStandinReal S) { X *= S; Y *= S; Z *= S; return *this; }
	bool operator==(const FVector& V) const { return X == V.X && Y == V.Y && Z == V.Z; }
	bool operator!=(const FVector& V) const { return !(*this == V); }
	/** Dot product. */
	FStandinReal operator|(const FVector& V) const { return X * V.X + Y * V.Y + Z * V.Z; }
	/** Cross product. */
	FVector operator^(const FVector& V) const { return FVector(Y * V.Z - Z * V.Y, Z * V.X - X * V.Z, X * V.Y - Y * V.X); }
	static FStandinReal DotProduct(const FVector& A, const FVector& B) { return A | B; }
	static FVector CrossProduct(const FVector& A, const FVector& B) { return A ^ B; }
	static FStandinReal Dist(const FVector& A, const FVector& B) { return (A - B).Size(); }
	FStandinReal Size() const { return std::sqrt(X * X + Y * Y + Z * Z); }
	FStandinReal SizeSquared() const { return X * X + Y * Y + Z * Z; }
	bool IsNearlyZero(FStandinReal Tolerance = 1e-4) const
	{
		return std::fabs(X) <= Tolerance && std::fabs(Y) <= Tolerance && std::fabs(Z) <= Tolerance;
	}
	bool Equals(const FVector& V, FStandinReal Tolerance = 1e-4) const { return (*this - V).IsNearlyZero(Tolerance); }
	FVector GetSafeNormal() const
	{
		const FStandinReal S = Size();
		return S > 1e-8 ? *this / S : ZeroVector;
	}
	FVector GetAbs() const { return FVector(std::fabs(X), std::fabs(Y), std::fabs(Z)); }
	FStandinReal GetMax() const { return std::max(X, std::max(Y, Z)); }
	FVector ComponentMin(const FVector& V) const { return FVector(std::min(X, V.X), std::min(Y, V.Y), std::min(Z, V.Z)); }
	FVector ComponentMax(const FVector& V) const { return FVector(std::max(X, V.X), std::max(Y, V.Y), std::max(Z, V.Z)); }
};
inline FVector operator*(FStandinReal S, const FVector& V) { return V * S; }

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
	FStandinReal Pitch = 0.0;
	FStandinReal Yaw = 0.0;
	FStandinReal Roll = 0.0;

	FRotator() = default;
	FRotator(FStandinReal InPitch, FStandinReal InYaw, FStandinReal InRoll) : Pitch(InPitch), Yaw(InYaw), Roll(InRoll) {}

	static const FRotator ZeroRotator;

	bool operator==(const FRotator& R) const { return Pitch == R.Pitch && Yaw == R.Yaw && Roll == R.Roll; }
	bool operator!=(const FRotator& R) const { return !(*this == R); }

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
	explicit FTransform(const FRotator& InRotation) : Rotation(InRotation) {}
	FTransform(const FRotator& InRotation, const FVector& InTranslation) : Rotation(InRotation), Location(InTranslation) {}

	static const FTransform Identity;

	FVector GetLocation() const { return Location; }
	FVector GetTranslation() const { return Location; }
	void SetLocation(const FVector& V) { Location = V; }
	void SetTranslation(const FVector& V) { Location = V; }
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
	FTransform Inverse() const { return FTransform::Identity.GetRelativeTransform(*this); }

private:
	FRotator Rotation;
	FVector Location;
};

/** Unreal's FBox: Min, Max and IsValid (0 for an empty box). Unreal's
 *  default constructor leaves it uninitialised; the stand-in's is empty. */
struct FBox
{
	FVector Min;
	FVector Max;
	uint8_t IsValid = 0;

	FBox() = default;
	explicit FBox(EForceInit) {}
	FBox(const FVector& InMin, const FVector& InMax) : Min(InMin), Max(InMax), IsValid(1) {}

	/** Grows the box to contain Point. */
	FBox& operator+=(const FVector& Point)
	{
		Min = IsValid ? Min.ComponentMin(Point) : Point;
		Max = IsValid ? Max.ComponentMax(Point) : Point;
		IsValid = 1;
		return *this;
	}
	FBox& operator+=(const FBox& Other)
	{
		if (Other.IsValid)
		{
			*this += Other.Min;
			*this += Other.Max;
		}
		return *this;
	}
	FBox operator+(const FBox& Other) const
	{
		FBox Result = *this;
		Result += Other;
		return Result;
	}
	FVector GetCenter() const { return (Min + Max) * 0.5; }
	FVector GetExtent() const { return (Max - Min) * 0.5; }
	FVector GetSize() const { return Max - Min; }
	void GetCenterAndExtents(FVector& Center, FVector& Extents) const
	{
		Extents = GetExtent();
		Center = Min + Extents;
	}
	bool IsInside(const FVector& In) const
	{
		return In.X > Min.X && In.X < Max.X && In.Y > Min.Y && In.Y < Max.Y && In.Z > Min.Z && In.Z < Max.Z;
	}
	bool Intersect(const FBox& Other) const
	{
		return Min.X <= Other.Max.X && Other.Min.X <= Max.X && Min.Y <= Other.Max.Y && Other.Min.Y <= Max.Y &&
			Min.Z <= Other.Max.Z && Other.Min.Z <= Max.Z;
	}
	/** The axis-aligned box around this one moved by Transform. */
	FBox TransformBy(const FTransform& Transform) const;
};

struct FIntPoint
{
	int32_t X = 0;
	int32_t Y = 0;

	FIntPoint() = default;
	FIntPoint(int32_t InX, int32_t InY) : X(InX), Y(InY) {}

	static const FIntPoint ZeroValue;

	bool operator==(const FIntPoint& Other) const { return X == Other.X && Y == Other.Y; }
	bool operator!=(const FIntPoint& Other) const { return !(*this == Other); }
	FIntPoint operator+(const FIntPoint& Other) const { return FIntPoint(X + Other.X, Y + Other.Y); }
	FIntPoint operator-(const FIntPoint& Other) const { return FIntPoint(X - Other.X, Y - Other.Y); }
};

struct FIntVector
{
	int32_t X = 0;
	int32_t Y = 0;
	int32_t Z = 0;

	FIntVector() = default;
	FIntVector(int32_t InX, int32_t InY, int32_t InZ) : X(InX), Y(InY), Z(InZ) {}
	bool operator==(const FIntVector& Other) const { return X == Other.X && Y == Other.Y && Z == Other.Z; }
};

/** [Min, Max): Max is one past the last column and row, as Unreal's. */
struct FIntRect
{
	FIntPoint Min;
	FIntPoint Max;

	FIntRect() = default;
	FIntRect(int32_t X0, int32_t Y0, int32_t X1, int32_t Y1) : Min(X0, Y0), Max(X1, Y1) {}
	FIntRect(FIntPoint InMin, FIntPoint InMax) : Min(InMin), Max(InMax) {}

	int32_t Width() const { return Max.X - Min.X; }
	int32_t Height() const { return Max.Y - Min.Y; }
	int32_t Area() const { return Width() * Height(); }
	FIntPoint Size() const { return FIntPoint(Width(), Height()); }
	bool operator==(const FIntRect& Other) const { return Min == Other.Min && Max == Other.Max; }
};

/** 8-bit BGRA colour: members in memory order B, G, R, A (little-endian
 *  Unreal), so a BGRA8 texture row is an array of FColor. The constructor
 *  takes R, G, B, A, as Unreal's. */
struct FColor
{
	uint8_t B = 0;
	uint8_t G = 0;
	uint8_t R = 0;
	uint8_t A = 0;

	FColor() = default;
	FColor(uint8_t InR, uint8_t InG, uint8_t InB, uint8_t InA = 255) : B(InB), G(InG), R(InR), A(InA) {}

	bool operator==(const FColor& C) const { return B == C.B && G == C.G && R == C.R && A == C.A; }
	bool operator!=(const FColor& C) const { return !(*this == C); }

	static const FColor Black;
	static const FColor White;
};
static_assert(sizeof(FColor) == 4, "FColor is four bytes, B G R A");
