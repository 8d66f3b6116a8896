// Stand-in for the parts of Unreal's CoreUObject the glue uses: UClass
// (an identity), UObject (creation rules, names, pending kill), NewObject,
// Cast, TSubclassOf, TScriptInterface, interfaces and dynamic multicast
// delegates. Included by StandinEngine.h. See README.md.
#pragma once

#include "StandinCore.h"

#include <functional>
#include <type_traits>

class UWorld;

// ------------------------------------------------------------------ UClass

/** A class's identity: its name (without the A/U/F prefix) and its parent.
 *  Reflected glue classes get one from the mini-UHT, engine classes from
 *  STANDIN_CLASS. Not a UObject here. */
class UClass
{
public:
	UClass(const TCHAR* InCppName, UClass* InSuperClass);
	UClass(const UClass&) = delete;
	UClass& operator=(const UClass&) = delete;

	FString GetName() const { return Name; }
	UClass* GetSuperClass() const { return SuperClass; }
	bool IsChildOf(const UClass* SomeBase) const;
	template <class T>
	bool IsChildOf() const
	{
		return IsChildOf(T::StaticClass());
	}

private:
	FString Name;
	UClass* SuperClass;
};

/** A USTRUCT's identity (StaticStruct()). */
class UScriptStruct
{
public:
	explicit UScriptStruct(const TCHAR* InCppName);
	UScriptStruct(const UScriptStruct&) = delete;
	UScriptStruct& operator=(const UScriptStruct&) = delete;
	FString GetName() const { return Name; }

private:
	FString Name;
};

/** What the mini-UHT's GENERATED_BODY declares, for the engine's own classes. */
#define STANDIN_CLASS(ClassName, BaseName)                                     \
public:                                                                        \
	using Super = BaseName;                                                    \
	using ThisClass = ClassName;                                               \
	using StandinReflectedClass = ClassName;                                   \
	static UClass* StaticClass()                                               \
	{                                                                          \
		static UClass StandinClass(TEXT(#ClassName), BaseName::StaticClass()); \
		return &StandinClass;                                                  \
	}                                                                          \
	UClass* StandinGetClass() const override { return StaticClass(); }         \
	static bool StandinIsUFunction(const TCHAR* InName) { return BaseName::StandinIsUFunction(InName); }

// ----------------------------------------------------------------- UObject

enum EObjectFlags
{
	RF_NoFlags = 0x0,
	RF_Public = 0x1,
	RF_Standalone = 0x2,
	RF_Transient = 0x40,
};

/** Stand-in internals: objects are only constructed inside these scopes
 *  (NewObject, SpawnActor, CreateDefaultSubobject). */
void StandinBeginConstruction();
void StandinEndConstruction();
bool StandinIsConstructing();

class UObject
{
public:
	using ThisClass = UObject;
	/** The class itself in a class UHT saw (ThisClass can be ambiguous in a
	 *  game class that also implements an interface). */
	using StandinReflectedClass = UObject;

	/** Aborts unless created by NewObject / SpawnActor / CreateDefaultSubobject. */
	UObject();
	virtual ~UObject();
	UObject(const UObject&) = delete;
	UObject& operator=(const UObject&) = delete;

	static UClass* StaticClass();
	UClass* GetClass() const
	{
		StandinCheckAlive("GetClass");
		return StandinGetClass();
	}
	/** RTTI: right for every class, reflected or not. */
	template <class T>
	bool IsA() const
	{
		return dynamic_cast<const T*>(this) != nullptr;
	}
	/** Through GetClass(): a class without GENERATED_BODY (the simulated
	 *  game's) reports its nearest reflected base. */
	bool IsA(const UClass* SomeBase) const { return GetClass()->IsChildOf(SomeBase); }
	/** T is a UINTERFACE's U-class (UFoo): whether this implements IFoo. */
	template <class T>
	bool Implements() const
	{
		using InterfaceType = typename T::StandinInterface;
		return dynamic_cast<const InterfaceType*>(this) != nullptr;
	}

	/** Unique among live objects (Unreal: the index in GUObjectArray). */
	uint32 GetUniqueID() const
	{
		StandinCheckAlive("GetUniqueID");
		return StandinUniqueID;
	}
	/** The name given at creation, else `<C++ class without A/U>_<UniqueID>`. */
	FString GetName() const;
	UObject* GetOuter() const { return StandinOuter; }
	virtual UWorld* GetWorld() const { return nullptr; }
	/** True once destroyed (Unreal 5 deprecates it for IsValid). */
	bool IsPendingKill() const
	{
		StandinCheckAlive("IsPendingKill/IsValid");
		return bStandinPendingKill;
	}

	/** Only legal inside a constructor (Unreal aborts too). */
	template <class T>
	T* CreateDefaultSubobject(FName SubobjectName, bool bTransient = false);

	virtual UClass* StandinGetClass() const { return StaticClass(); }
	static bool StandinIsUFunction(const TCHAR* /*Name*/) { return false; }
	void StandinSetName(const FString& InName) { StandinObjectName = InName; }
	/** Takes ownership of Object (a subobject or NewObject with this outer). */
	virtual void StandinAdopt(UObject* Object);
	virtual void StandinMarkPendingKill() { bStandinPendingKill = true; }
	/** A garbage-collection point freed this object (it was destroyed and
	 *  nothing kept it): every use through a pointer kept from before aborts,
	 *  where Unreal would read freed memory. */
	virtual void StandinCollect();
	bool StandinIsCollected() const { return bStandinCollected; }
	/** Aborts (naming What) if this object was collected. */
	void StandinCheckAlive(const char* What) const
	{
		if (bStandinCollected)
			StandinUseAfterCollect(What);
	}

private:
	[[noreturn]] void StandinUseAfterCollect(const char* What) const;
	FString StandinNameUnchecked() const;

	uint32 StandinUniqueID;
	bool bStandinCollected = false;
	FString StandinObjectName;
	UObject* StandinOuter = nullptr;
	bool bStandinPendingKill = false;
	std::vector<std::unique_ptr<UObject>> StandinOwned;
};

/** Unreal's IsValid: not null and not destroyed. On a collected object's
 *  stale pointer it aborts (Unreal reads freed memory). */
inline bool IsValid(const UObject* Test)
{
	return Test != nullptr && !Test->IsPendingKill();
}

/** The live-object table (Unreal's GUObjectArray): objects by UniqueID,
 *  until collected. Thread-safe. */
void StandinRegisterLive(uint32 Id, UObject* Object);
void StandinUnregisterLive(uint32 Id);
/** Whether the object with this id is alive (not collected) and, unless
 *  bEvenIfPendingKill, not destroyed. Never touches a collected object. */
bool StandinIsLive(uint32 Id, bool bEvenIfPendingKill);

/** Unreal's TWeakObjectPtr: an object's index and serial, not a reference:
 *  Get() is null once the object is destroyed or collected (never a
 *  dangling pointer); GC does not keep it alive. */
template <class T>
class TWeakObjectPtr
{
public:
	TWeakObjectPtr() = default;
	TWeakObjectPtr(std::nullptr_t) {}
	template <class U, typename = typename std::enable_if<std::is_convertible<U*, T*>::value>::type>
	TWeakObjectPtr(U* Object) : Pointer(Object), Id(Object != nullptr ? static_cast<const UObject*>(Object)->GetUniqueID() : 0u)
	{
	}
	template <class U, typename = typename std::enable_if<std::is_convertible<U*, T*>::value>::type>
	TWeakObjectPtr(const TWeakObjectPtr<U>& Other) : Pointer(Other.Get(true)), Id(Other.StandinId())
	{
	}

	T* Get(bool bEvenIfPendingKill = false) const
	{
		return Id != 0 && StandinIsLive(Id, bEvenIfPendingKill) ? Pointer : nullptr;
	}
	bool IsValid() const { return Get() != nullptr; }
	/** Was set to an object that is now destroyed or collected. */
	bool IsStale() const { return Id != 0 && Get() == nullptr; }
	void Reset()
	{
		Pointer = nullptr;
		Id = 0;
	}
	T* operator->() const { return Get(); }
	T& operator*() const { return *Get(); }
	explicit operator bool() const { return IsValid(); }
	/** Same object (by index and serial, as Unreal compares). */
	bool operator==(const TWeakObjectPtr& Other) const { return Id == Other.Id; }
	bool operator!=(const TWeakObjectPtr& Other) const { return Id != Other.Id; }
	uint32 StandinId() const { return Id; }

private:
	T* Pointer = nullptr;
	uint32 Id = 0;
};

template <class T>
T* StandinConstruct()
{
	StandinBeginConstruction();
	T* Object = new T();
	StandinEndConstruction();
	return Object;
}

template <class T>
T* UObject::CreateDefaultSubobject(FName SubobjectName, bool /*bTransient*/)
{
	if (!StandinIsConstructing())
	{
		STANDIN_FATAL("CreateDefaultSubobject(%s) outside a constructor: Unreal aborts (\"CreateDefaultSubobject can only be "
					  "used inside of UObject Constructors\"); use NewObject + RegisterComponent after construction",
			SubobjectName.ToString().StandinStd().c_str());
	}
	T* Object = StandinConstruct<T>();
	Object->StandinSetName(SubobjectName.ToString());
	StandinAdopt(Object);
	return Object;
}

/** Outer of objects created without one; lives until the process exits. */
class UPackage : public UObject
{
	STANDIN_CLASS(UPackage, UObject)
};
UPackage* GetTransientPackage();

template <class T>
T* NewObject(UObject* Outer, FName Name, EObjectFlags /*Flags*/ = RF_NoFlags)
{
	check(Outer != nullptr);
	T* Object = StandinConstruct<T>();
	if (!Name.IsNone())
		Object->StandinSetName(Name.ToString());
	Outer->StandinAdopt(Object);
	return Object;
}

template <class T>
T* NewObject(UObject* Outer = (UObject*)GetTransientPackage())
{
	return NewObject<T>(Outer, NAME_None);
}

/** Class must be T's own (the stand-in cannot create a subclass it does not know). */
template <class T>
T* NewObject(UObject* Outer, const UClass* Class, FName Name = NAME_None, EObjectFlags Flags = RF_NoFlags)
{
	if (Class != T::StaticClass())
		STANDIN_FATAL("NewObject<T>(Outer, Class): the stand-in can only create T itself");
	return NewObject<T>(Outer, Name, Flags);
}

/** Unreal's Cast: nullptr when Src is null or not a To (here via dynamic_cast,
 *  which also covers interfaces: Cast<IFoo>(Object)). */
inline void StandinCheckCastSource(const UObject* Src)
{
	Src->StandinCheckAlive("Cast");
}
inline void StandinCheckCastSource(const void* /*NotAnObject*/) {}

template <class To, class From>
To* Cast(From* Src)
{
	if (Src == nullptr)
		return nullptr;
	StandinCheckCastSource(Src);
	return dynamic_cast<To*>(Src);
}

template <class To, class From>
To* CastChecked(From* Src)
{
	To* Result = Cast<To>(Src);
	if (Result == nullptr)
		STANDIN_FATAL("CastChecked failed (null or not of the target class)");
	return Result;
}

template <class T>
class TSubclassOf
{
public:
	TSubclassOf() = default;
	TSubclassOf(UClass* From) : Class(From) {}
	/** nullptr unless the class is T or a child of T, as Unreal's. */
	UClass* Get() const { return Class != nullptr && Class->IsChildOf(T::StaticClass()) ? Class : nullptr; }
	operator UClass*() const { return Get(); }
	UClass* operator*() const { return Get(); }
	UClass* operator->() const { return Get(); }

private:
	UClass* Class = nullptr;
};

/** An object and its interface pointer (Cast at construction, as Unreal's:
 *  any UObject converts, the interface is null if it does not implement it). */
template <class InterfaceType>
class TScriptInterface
{
public:
	TScriptInterface() = default;
	TScriptInterface(std::nullptr_t) {}
	template <class U, typename = typename std::enable_if<std::is_convertible<U*, UObject*>::value>::type>
	TScriptInterface(U* Source) : ObjectPointer(Source), InterfacePointer(Cast<InterfaceType>(static_cast<UObject*>(Source)))
	{
	}
	UObject* GetObject() const { return ObjectPointer; }
	InterfaceType* GetInterface() const { return InterfacePointer; }
	InterfaceType* operator->() const { return InterfacePointer; }
	explicit operator bool() const { return InterfacePointer != nullptr; }

private:
	UObject* ObjectPointer = nullptr;
	InterfaceType* InterfacePointer = nullptr;
};

class UInterface : public UObject
{
	STANDIN_CLASS(UInterface, UObject)
};

class IInterface
{
protected:
	virtual ~IInterface() = default;

public:
	typedef UInterface UClassType;
};

/** The mini-UHT's Execute_ functions: Object must implement the interface
 *  (Unreal: check(O->GetClass()->ImplementsInterface(...))). */
template <class InterfaceType>
InterfaceType* StandinInterfaceFor(UObject* Object, const char* Function)
{
	InterfaceType* Interface = Cast<InterfaceType>(Object);
	if (Interface == nullptr)
		STANDIN_FATAL("%s on %s: the object is null or does not implement the interface (Unreal: check failed)", Function,
			Object != nullptr ? Object->GetName().StandinStd().c_str() : "null");
	return Interface;
}

template <class InterfaceType>
const InterfaceType* StandinInterfaceFor(const UObject* Object, const char* Function)
{
	return StandinInterfaceFor<InterfaceType>(const_cast<UObject*>(Object), Function);
}

// -------------------------------------------------------------- delegates

template <typename T>
struct TStandinIdentity
{
	using Type = T;
};

/** "Name" from TEXT("&AClass::Name"), as Unreal's STATIC_FUNCTION_FNAME. */
FName StandinTrimmedMemberFunctionName(const TCHAR* InMacroFunctionName);
#define STATIC_FUNCTION_FNAME(str) StandinTrimmedMemberFunctionName(str)

/** A dynamic multicast delegate: bindings are (object, UFUNCTION name).
 *  Binding a reflected class's method that is not a UFUNCTION, or the same
 *  pair twice, aborts (Unreal: an ensure, and the binding never fires);
 *  Broadcast skips destroyed objects and calls on a copy of the list. */
template <typename... ParamTypes>
class TStandinDynamicMulticastDelegate
{
public:
	template <class UserClass>
	using TMethodPtr = void (UserClass::*)(ParamTypes...);

	template <class UserClass>
	void __Internal_AddDynamic(UserClass* InUserObject, typename TStandinIdentity<TMethodPtr<UserClass>>::Type InFunc, FName InFunctionName)
	{
		if (StandinFind(InUserObject, InFunctionName) >= 0)
			STANDIN_FATAL("AddDynamic: %s is already bound to this delegate on %s (Unreal: ensure; use AddUniqueDynamic)",
				InFunctionName.ToString().StandinStd().c_str(), InUserObject->GetName().StandinStd().c_str());
		StandinAdd(InUserObject, InFunc, InFunctionName);
	}

	template <class UserClass>
	void __Internal_AddUniqueDynamic(UserClass* InUserObject, typename TStandinIdentity<TMethodPtr<UserClass>>::Type InFunc, FName InFunctionName)
	{
		if (StandinFind(InUserObject, InFunctionName) < 0)
			StandinAdd(InUserObject, InFunc, InFunctionName);
	}

	template <class UserClass>
	void __Internal_RemoveDynamic(UserClass* InUserObject, typename TStandinIdentity<TMethodPtr<UserClass>>::Type /*InFunc*/, FName InFunctionName)
	{
		const int32 Index = StandinFind(InUserObject, InFunctionName);
		if (Index >= 0)
			Bindings.erase(Bindings.begin() + Index);
	}

	template <class UserClass>
	bool __Internal_IsAlreadyBound(UserClass* InUserObject, typename TStandinIdentity<TMethodPtr<UserClass>>::Type /*InFunc*/, FName InFunctionName) const
	{
		return StandinFind(InUserObject, InFunctionName) >= 0;
	}

	void RemoveAll(const UObject* Object)
	{
		for (size_t Index = Bindings.size(); Index-- > 0;)
			if (Bindings[Index].Object == Object)
				Bindings.erase(Bindings.begin() + static_cast<std::ptrdiff_t>(Index));
	}
	void Clear() { Bindings.clear(); }
	bool IsBound() const { return !Bindings.empty(); }

	void Broadcast(ParamTypes... Params) const
	{
		const std::vector<FBinding> Copy = Bindings;
		for (const FBinding& Binding : Copy)
			if (IsValid(Binding.Object))
				Binding.Call(Params...);
	}

private:
	struct FBinding
	{
		UObject* Object;
		FName FunctionName;
		std::function<void(ParamTypes...)> Call;
	};

	int32 StandinFind(const UObject* Object, const FName& FunctionName) const
	{
		for (size_t Index = 0; Index < Bindings.size(); ++Index)
			if (Bindings[Index].Object == Object && Bindings[Index].FunctionName == FunctionName)
				return static_cast<int32>(Index);
		return -1;
	}

	template <class UserClass>
	void StandinAdd(UserClass* InUserObject, TMethodPtr<UserClass> InFunc, FName InFunctionName)
	{
		static_assert(std::is_base_of<UObject, UserClass>::value, "dynamic delegates bind UObjects");
		check(InUserObject != nullptr && InFunc != nullptr);
		// A class the mini-UHT saw knows its UFUNCTIONs; the simulated game's
		// classes (no GENERATED_BODY) are not checked.
		if constexpr (std::is_same<typename UserClass::StandinReflectedClass, UserClass>::value)
		{
			if (!UserClass::StandinIsUFunction(*InFunctionName.ToString()))
				STANDIN_FATAL("AddDynamic: %s is not a UFUNCTION of %s: Unreal cannot bind it (\"Unable to bind delegate\")",
					InFunctionName.ToString().StandinStd().c_str(), UserClass::StaticClass()->GetName().StandinStd().c_str());
		}
		Bindings.push_back(FBinding{InUserObject, InFunctionName,
			[InUserObject, InFunc](ParamTypes... Params) { (InUserObject->*InFunc)(Params...); }});
	}

	std::vector<FBinding> Bindings;
};

#define AddDynamic(UserObject, FuncName) __Internal_AddDynamic(UserObject, FuncName, STATIC_FUNCTION_FNAME(TEXT(#FuncName)))
#define AddUniqueDynamic(UserObject, FuncName) __Internal_AddUniqueDynamic(UserObject, FuncName, STATIC_FUNCTION_FNAME(TEXT(#FuncName)))
#define RemoveDynamic(UserObject, FuncName) __Internal_RemoveDynamic(UserObject, FuncName, STATIC_FUNCTION_FNAME(TEXT(#FuncName)))
#define IsAlreadyBound(UserObject, FuncName) __Internal_IsAlreadyBound(UserObject, FuncName, STATIC_FUNCTION_FNAME(TEXT(#FuncName)))

#define DECLARE_DYNAMIC_MULTICAST_DELEGATE(DelegateName) class DelegateName : public TStandinDynamicMulticastDelegate<>{}
#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_OneParam(DelegateName, T1, N1)                            \
	class DelegateName : public TStandinDynamicMulticastDelegate<T1>                                   \
	{                                                                                                  \
	}
#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_TwoParams(DelegateName, T1, N1, T2, N2)                   \
	class DelegateName : public TStandinDynamicMulticastDelegate<T1, T2>                               \
	{                                                                                                  \
	}
#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_ThreeParams(DelegateName, T1, N1, T2, N2, T3, N3)         \
	class DelegateName : public TStandinDynamicMulticastDelegate<T1, T2, T3>                           \
	{                                                                                                  \
	}
#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_FourParams(DelegateName, T1, N1, T2, N2, T3, N3, T4, N4) \
	class DelegateName : public TStandinDynamicMulticastDelegate<T1, T2, T3, T4>                       \
	{                                                                                                  \
	}
