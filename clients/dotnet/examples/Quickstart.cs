class Placeholder { static void Main() {} }
