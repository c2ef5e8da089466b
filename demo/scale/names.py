"""People for a scale data set: owners, seizers, claimants and bidders with Indian names, mobile
numbers, and the ear tags of their cattle. No database work here.

A name is a given name and a surname of one region (a Yadav is not a Banerjee's son), in the
Latin letters the register holds, each list drawn with a Zipf-like skew: a few names are very
common (Ram, Sunita, Kumar, Yadav) and most are rare, as in any district's register. The six
regions give about 6,700 distinct full names, about 6,000 of which turn up in 100,000 draws.
The State is taken to be in the Hindi belt, so most of its people are named as there, with
Muslim, Punjabi, Bengali, western and southern names among them. One person in twenty is
known by the given name alone ("Kallu")."""

from itertools import accumulate

from stdnum import verhoeff

# (share of the people, male given names, female given names, surnames), each list comma-
# separated and most common first.
REGIONS = [
    (
        60,
        (
            "Ram, Shyam, Rajesh, Suresh, Ramesh, Mahesh, Dinesh, Rakesh, Mukesh, Santosh, Sanjay, "
            "Manoj, Vijay, Ajay, Anil, Sunil, Pramod, Vinod, Ashok, Rajendra, Surendra, Mahendra, "
            "Narendra, Virendra, Dharmendra, Om Prakash, Ram Prasad, Shiv Kumar, Rajkumar, "
            "Hari Krishna, Gopal, Radhey Shyam, Mohan, Sohan, Kishan Lal, Phool Chand, "
            "Gulab Chand, Bablu, Pappu, Kallu, Munna, Raju, Pintu, Sonu, Monu, Deepak, Amit, "
            "Rahul, Ravi, Arvind, Brijesh, Kamlesh, Awadhesh, Umesh, Jagdish, Ramesh Chandra, "
            "Devendra, Shailendra, Jitendra, Lalji, Bhagwan Das, Ram Sagar, Ram Naresh, "
            "Shambhu Nath, Triloki Nath"
        ),
        (
            "Sunita, Anita, Geeta, Sita, Kamla, Savitri, Shanti, Pushpa, Urmila, Suman, Rekha, "
            "Meena, Asha, Usha, Kiran, Poonam, Neelam, Sarita, Manju, Kusum, Radha, Laxmi, Saroj, "
            "Sushila, Rani, Gita, Guddi, Munni, Phoolmati, Ramwati, Shyama, Sheela, Babita"
        ),
        (
            "Kumar, Yadav, Singh, Verma, Sharma, Prasad, Gupta, Maurya, Pal, Chauhan, Mishra, "
            "Tiwari, Pandey, Shukla, Dubey, Tripathi, Srivastava, Kushwaha, Nishad, Rajbhar, "
            "Patel, Lodhi, Saini, Jatav, Pasi, Prajapati, Chaudhary, Rawat, Baghel, Kurmi, Gautam, "
            "Rathore, Thakur, Sonkar, Vishwakarma, Kashyap, Upadhyay, Dwivedi, Bajpai, Awasthi"
        ),
    ),
    (
        18,
        (
            "Mohd. Arif, Abdul Rahman, Mohd. Salim, Abdul Karim, Shakeel Ahmad, Mohd. Rafiq, "
            "Irfan, Imran, Salman, Javed, Aslam, Iqbal, Naseem, Wasim, Zubair, Faheem, Anwar, "
            "Mustaqeem, Nafees, Shahid, Rashid, Sajid, Majid, Haneef, Mehboob, Usman, Yusuf, "
            "Idris, Ilyas, Kalim"
        ),
        (
            "Shabana, Rukhsana, Nasreen, Salma, Farzana, Shamim Bano, Naseem Bano, Zareena, "
            "Khatoon, Ayesha, Fatima, Rehana, Sultana, Amina, Mumtaz, Noorjahan, Hasina"
        ),
        (
            "Khan, Ansari, Qureshi, Siddiqui, Ahmad, Hussain, Shaikh, Malik, Alvi, Rizvi, Saifi, "
            "Mansoori, Qasmi, Farooqui, Pathan, Mirza, Beg, Usmani"
        ),
    ),
    (
        6,
        (
            "Gurpreet, Harpreet, Jaswinder, Sukhwinder, Balwinder, Kuldeep, Manjit, Paramjit, "
            "Amarjit, Harjinder, Gurmeet, Jagjit, Baljit, Satnam, Inderjit, Ranjit, Lakhvir, "
            "Davinder"
        ),
        (
            "Harjeet, Kaur, Manpreet, Jasleen, Simran, Amandeep, Rajwinder, Kulwant, Navneet, "
            "Paramjeet"
        ),
        (
            "Singh, Sandhu, Gill, Sidhu, Dhillon, Grewal, Brar, Bajwa, Virk, Cheema, Randhawa, "
            "Kaur, Ahluwalia"
        ),
    ),
    (
        4,
        (
            "Subhash, Tapan, Swapan, Biswajit, Debashis, Sukanta, Pradip, Amit, Partha, Sanjib, "
            "Bikash, Gautam, Prasenjit, Dipankar, Anup, Nirmal, Ashim, Tarun"
        ),
        ("Mamata, Rina, Mitali, Sumita, Shampa, Jhuma, Tapati, Bulbul, Krishna, Moumita"),
        (
            "Das, Roy, Ghosh, Mondal, Biswas, Sarkar, Banerjee, Chatterjee, Mukherjee, Dutta, "
            "Saha, Bose, Majumdar, Sen, Pal, Haldar"
        ),
    ),
    (
        8,
        (
            "Santosh, Ganesh, Sunil, Dnyaneshwar, Vitthal, Balu, Sachin, Nitin, Prakash, Dilip, "
            "Bharat, Kantilal, Jayesh, Bhavesh, Mahesh, Rajesh, Ramesh, Hasmukh, Narayan, Tukaram, "
            "Vasant, Shankar"
        ),
        ("Sunanda, Mangal, Shobha, Lata, Surekha, Vandana, Jyoti, Hansa, Daksha, Manisha, Kokila"),
        (
            "Patil, Jadhav, Pawar, Shinde, More, Kale, Gaikwad, Deshmukh, Chavan, Patel, Shah, "
            "Desai, Parmar, Solanki, Makwana, Rathod, Bhoi"
        ),
    ),
    (
        4,
        (
            "Ramesh, Murugan, Senthil, Rajan, Suresh, Krishnan, Venkatesh, Srinivas, Anand, Ravi, "
            "Prakash, Manikandan, Subramani, Gopal, Nagaraj, Raghu, Mohan, Ganesan"
        ),
        (
            "Lakshmi, Saraswathi, Meenakshi, Vijaya, Parvathi, Revathi, Kavitha, Padma, Selvi, "
            "Malathi"
        ),
        ("Reddy, Naidu, Rao, Pillai, Nair, Iyer, Gowda, Menon, Raju, Murthy, Shetty, Kumar"),
    ),
]
FEMALE_SHARE = 0.12  # women named as owners, claimants and bidders
GIVEN_ONLY = 0.05
# The first digit of an Indian mobile number (6-9), by the share of numbers issued.
MOBILE_FIRST = ("9", "8", "7", "6")
MOBILE_WEIGHTS = (44, 26, 20, 10)


def _split(names):
    return [name.strip() for name in names.split(",")]


def _zipf(items, s=1.0):
    """(items, cumulative weights) with the k-th item weighted 1/k^s."""
    return items, list(accumulate(1 / (k + 1) ** s for k in range(len(items))))


class People:
    """Draws names, mobile numbers and ear tags from a seeded generator."""

    def __init__(self):
        self.regions = [
            (_zipf(_split(male)), _zipf(_split(female)), _zipf(_split(surnames)))
            for _share, male, female, surnames in REGIONS
        ]
        self.region_weights = list(accumulate(share for share, *_ in REGIONS))

    def name(self, rng, *, female=None):
        male, women, surnames = rng.choices(self.regions, cum_weights=self.region_weights)[0]
        if female is None:
            female = rng.random() < FEMALE_SHARE
        names, weights = women if female else male
        given = rng.choices(names, cum_weights=weights)[0]
        if rng.random() < GIVEN_ONLY:
            return given
        surnames, weights = surnames
        surname = rng.choices(surnames, cum_weights=weights)[0]
        if female and surname in ("Singh", "Kumar"):
            surname = "Devi" if surname == "Kumar" else "Kaur"
        return f"{given} {surname}"

    def distinct(self):
        """How many distinct full names the lists can give."""
        return sum((len(m[0]) + len(f[0])) * (len(s[0]) + 1) for m, f, s in self.regions)


def mobile(rng):
    """A 10-digit Indian mobile number: 6, 7, 8 or 9, then nine digits."""
    first = rng.choices(MOBILE_FIRST, MOBILE_WEIGHTS)[0]
    return f"{first}{rng.randrange(10**9):09d}"


def ear_tag(rng):
    """A 12-digit national (Pashu Aadhaar) tag with its Verhoeff check digit, as
    impounding.tags checks it: eleven digits, the first not zero, and the check."""
    body = str(rng.randrange(10**10, 10**11))
    return body + verhoeff.calc_check_digit(body)


PEOPLE = People()
